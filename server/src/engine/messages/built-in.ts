import type { MessageText } from "./render.js";

/**
 * The texts the service writes itself, by template code: inbox messages, and
 * labels participants see (a level's name, the titles of cashback payments,
 * official tournaments and their prizes; a label is its `title`). A club's
 * `messageTemplates` entry with the same code replaces them. Every code has
 * `pt-BR` and `en`, the end of every locale chain.
 */
export const BUILT_IN_TEMPLATES: Readonly<Record<string, Record<string, MessageText>>> = {
  level_up: {
    "pt-BR": { title: "Você subiu para o {{level_name}}!" },
    en: { title: "You reached {{level_name}}!" },
  },
  mission_completed: {
    "pt-BR": { title: "Missão concluída!", body: 'Você completou "{{mission_title}}".' },
    en: { title: "Mission completed!", body: 'You completed "{{mission_title}}".' },
  },
  reward_granted: {
    "pt-BR": { title: "Você ganhou: {{reward_title}}" },
    en: { title: "You won: {{reward_title}}" },
  },
  reward_delivered: {
    "pt-BR": { title: "Prêmio entregue: {{reward_title}}" },
    en: { title: "Reward delivered: {{reward_title}}" },
  },
  reward_delivery_failed: {
    "pt-BR": { title: "Não foi possível entregar: {{reward_title}}", body: "Fale com o suporte do clube." },
    en: { title: "Could not deliver: {{reward_title}}", body: "Please contact the club's support." },
  },
  level_name: {
    "pt-BR": { title: "Nível {{level}}" },
    en: { title: "Level {{level}}" },
  },
  cashback_reward: {
    "pt-BR": { title: "Cashback" },
    en: { title: "Cashback" },
  },
  official_prize_reward: {
    "pt-BR": { title: "Prêmio do torneio oficial" },
    en: { title: "Official tournament prize" },
  },
  official_tournament_daily: {
    "pt-BR": { title: "{{track}} (diário)" },
    en: { title: "{{track}} (daily)" },
  },
  official_tournament_monthly: {
    "pt-BR": { title: "{{track}} (mensal)" },
    en: { title: "{{track}} (monthly)" },
  },
};
