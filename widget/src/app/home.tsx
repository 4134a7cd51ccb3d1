import { useWidget } from "./context";
import { Loaded, useLoad } from "./load";
import { Profile } from "./modules";
import { Badge, Illustration } from "./art";
import type { ModuleName } from "../protocol";

/** The home screen: the configured blocks in their order. */
export function Home() {
  const { config } = useWidget();
  return (
    <div class="stack">
      {config.home.map((block) => {
        const heading = block.title ? <h2>{block.title}</h2> : null;
        const sub = block.subtitle ? <p class="muted">{block.subtitle}</p> : null;
        let body;
        switch (block.block) {
          case "hero":
            body = <Hero />;
            break;
          case "profile":
            body = <Profile compact />;
            break;
          case "next-action":
            body = <NextAction />;
            break;
          case "modules":
            body = <Cards />;
            break;
          case "recent-rewards":
            body = <RecentRewards />;
            break;
          case "leaderboard":
            body = <TopLeaderboard />;
            break;
          case "faq":
            body = <FaqLink />;
            break;
        }
        return (
          <section key={block.block} class="block" data-block={block.block}>
            {heading}
            {sub}
            {body}
          </section>
        );
      })}
    </div>
  );
}

function Hero() {
  const { progress, profile, t, config } = useWidget();
  const name = progress?.participant.display_name;
  return (
    <div class="card hero row">
      <div>
        <p class="hero-title">{name ? t.hello(name) : config.club_name}</p>
        {progress ? (
          <p class="muted">
            {progress.level.name}
            {profile ? ` · ${profile.tier.name}` : ""}
          </p>
        ) : null}
      </div>
      {profile ? <Badge color={profile.tier.color} size={56} /> : null}
    </div>
  );
}

function NextAction() {
  const { api, t, open, config } = useWidget();
  const checkin = useLoad(() => (config.checkin ? api.me.checkin() : Promise.resolve(null)));
  const missions = useLoad(() => api.me.missions());
  const claimable = missions.data?.data.find((mission) => mission.claimable);
  let action: { label: string; module: ModuleName } | null = null;
  if (checkin.data?.canClaim) action = { label: t.checkinNow, module: "checkin" };
  else if (claimable) action = { label: `${t.claim}: ${claimable.title}`, module: "missions" };
  if (!action) return null;
  return (
    <div class="card row">
      <span class="muted">{t.nextAction}</span>
      <button class="btn primary" onClick={() => open(action!.module)}>
        {action.label}
      </button>
    </div>
  );
}

/** The groups of module cards, in the order a participant's day goes (today, play, redeem); ungrouped cards last. */
const GROUPS = ["hoje", "jogar", "resgate", "more"] as const;

/**
 * The `modules` block: one section per card `group`, each a grid where a
 * `grid` card is a tile and a `row` card spans the row; a card's `tone`
 * colours it and its illustration.
 */
function Cards() {
  const { config, open, t } = useWidget();
  const sections = GROUPS.map((group) => ({ group, cards: config.moduleCards.filter((card) => (card.group ?? "more") === group) })).filter(
    (section) => section.cards.length,
  );
  // Without any group the cards need no headings: one list, as before groups existed.
  const headed = sections.some((section) => section.group !== "more");
  return (
    <div class="groups">
      {sections.map(({ group, cards }) => (
        <section key={group} class="group" data-group={group}>
          {headed ? <h2 class="group-title">{t.groups[group]}</h2> : null}
          <ul class="cards" role="list">
            {cards.map((card) => (
              <li key={card.module} class={`card module layout-${card.layout ?? "grid"} tone-${card.tone ?? "none"}`} data-module={card.module}>
                <Illustration name={card.illustration} size={card.layout === "row" ? 48 : 64} />
                <div class="module-text">
                  <h3>{card.title}</h3>
                  <p class="muted">{card.subtitle}</p>
                </div>
                <button class="btn primary" onClick={() => open(card.module as ModuleName)} aria-label={`${card.cta}: ${card.title}`}>
                  {card.cta}
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function RecentRewards() {
  const { api, t, fmt, open } = useWidget();
  const rewards = useLoad(() => api.me.rewards());
  return (
    <Loaded state={rewards}>
      {(list) =>
        list.data.length === 0 ? (
          <p class="muted">{t.noRewards}</p>
        ) : (
          <ul class="list" role="list">
            {list.data.slice(0, 3).map((reward) => (
              <li key={reward.id} class="card row">
                <span>{reward.title}</span>
                <span class="muted">{fmt.date(reward.granted_at)}</span>
              </li>
            ))}
            <li>
              <button class="btn ghost" onClick={() => open("rewards")}>
                {t.rewards}
              </button>
            </li>
          </ul>
        )
      }
    </Loaded>
  );
}

function TopLeaderboard() {
  const { api, t, open, fmt } = useWidget();
  const boards = useLoad(() => api.me.leaderboards());
  return (
    <Loaded state={boards}>
      {(list) =>
        list.data.length === 0 ? null : (
          <div class="card row">
            <span>
              {list.data[0].title}: {list.data[0].rank ? `#${fmt.number(list.data[0].rank)}` : "—"}
            </span>
            <button class="btn ghost" onClick={() => open("leaderboard")}>
              {t.leaderboard}
            </button>
          </div>
        )
      }
    </Loaded>
  );
}

function FaqLink() {
  const { t, open, config } = useWidget();
  return config.faq.length ? (
    <button class="btn ghost" onClick={() => open("faq")}>
      {t.faq}
    </button>
  ) : null;
}
