import type { MessageText } from "./render.js";

/**
 * The texts of the inbox messages the service writes itself, by template code.
 * A club's `messageTemplates` entry with the same code replaces them.
 */
export const BUILT_IN_TEMPLATES: Readonly<Record<string, Record<string, MessageText>>> = {
  level_up: {
    "pt-BR": { title: "Você subiu para o {{level_name}}!" },
    en: { title: "You reached {{level_name}}!" },
  },
  mission_completed: {
    "pt-BR": { title: "Missão concluída!", body: "Você completou \"{{mission_title}}\"." },
    en: { title: "Mission completed!", body: "You completed \"{{mission_title}}\"." },
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
};
