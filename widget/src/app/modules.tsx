import { useState } from "preact/hooks";
import type { ModuleName } from "../protocol";
import { useWidget } from "./context";
import { Bar, errorText, Loaded, newKey, Notice, useLoad } from "./load";
import { Wheel } from "./wheel";
import { Badge, Illustration } from "./art";

/** The modules the widget can show (what `open(module)` accepts besides `home`). */
export const MODULES: ModuleName[] = [
  "profile",
  "currencies",
  "missions",
  "checkin",
  "wheel",
  "store",
  "rewards",
  "leaderboard",
  "notifications",
  "cashback",
  "referral",
  "badges",
  "faq",
  "codes",
];

export function moduleView(module: ModuleName) {
  switch (module) {
    case "profile":
      return <Profile />;
    case "currencies":
      return <Currencies />;
    case "missions":
      return <Missions />;
    case "checkin":
      return <Checkin />;
    case "wheel":
      return <Wheel />;
    case "store":
      return <Store />;
    case "rewards":
      return <Rewards />;
    case "leaderboard":
      return <Leaderboards />;
    case "notifications":
      return <Notifications />;
    case "cashback":
      return <Cashback />;
    case "referral":
      return <Referral />;
    case "badges":
      return <Badges />;
    case "faq":
      return <Faq />;
    case "codes":
      return <Codes />;
    default:
      return null;
  }
}

export function Profile(props: { compact?: boolean }) {
  const { progress, profile, t, fmt, config, open } = useWidget();
  if (!progress || !profile)
    return (
      <p role="status" class="muted">
        {t.loading}
      </p>
    );
  const tier = config.tiers.find((candidate) => candidate.code === profile.tier.code);
  const remaining = progress.xp.required - progress.xp.current;
  return (
    <div class="card profile" data-testid="profile">
      <div class="row">
        {/* Without a picture of their own, the participant wears the level badge of the club's badge set. */}
        {progress.participant.avatar_url ? <img class="avatar" src={progress.participant.avatar_url} alt="" /> : <Badge size={44} />}
        <div>
          <p class="level" data-testid="level">
            {t.level} {fmt.number(progress.level.number)}
          </p>
          {progress.level.name !== `${t.level} ${progress.level.number}` ? <p class="muted">{progress.level.name}</p> : null}
        </div>
        <span class="tier" style={{ borderColor: profile.tier.color ?? undefined }}>
          <Badge color={profile.tier.color} size={28} /> {t.tier}: {profile.tier.name}
        </span>
      </div>
      <Bar value={progress.xp.current} max={progress.xp.required || 1} label={`${t.xp} ${t.level} ${progress.level.number}`} />
      <p class="muted" data-testid="xp">
        {fmt.number(progress.xp.total)} {t.xp} · {progress.next_level ? t.xpToNext(fmt.number(remaining)) : t.maxLevel}
      </p>
      {props.compact ? (
        <button class="btn ghost" onClick={() => open("profile")}>
          {t.profile}
        </button>
      ) : (
        <>
          <h2>{t.balances}</h2>
          <BalanceList />
          {tier && tier.benefits.length ? (
            <>
              <h2>{t.benefits}</h2>
              <ul class="list" role="list">
                {tier.benefits.map((benefit) => (
                  <li key={benefit.code}>{benefit.name}</li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      )}
    </div>
  );
}

function BalanceList() {
  const { progress, fmt } = useWidget();
  return (
    <ul class="list" role="list" data-testid="balances">
      {(progress?.currencies ?? []).map((currency) => (
        <li key={currency.code} class="row" data-currency={currency.code}>
          <span>{currency.name}</span>
          <strong data-testid={`balance-${currency.code}`}>{fmt.amount(currency.balance, currency.code)}</strong>
        </li>
      ))}
    </ul>
  );
}

function Currencies() {
  return (
    <div class="card">
      <BalanceList />
    </div>
  );
}

function Missions() {
  const { api, t, fmt, config, refresh, track } = useWidget();
  const missions = useLoad(() => api.me.missions());
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | null>(null);
  const claim = async (id: string, title: string) => {
    try {
      await api.me.claimMission(id);
      setNotice({ text: `${t.claimed}: ${title}` });
      track("mission.claimed", { mission_id: id });
      await Promise.all([missions.reload(), refresh()]);
    } catch (err) {
      setNotice({ text: errorText(err), error: true });
    }
  };
  return (
    <>
      <Notice text={notice?.text ?? null} error={notice?.error} />
      <Loaded state={missions}>
        {(list) => (
          <ul class="list" role="list">
            {list.data.map((mission) => (
              <li key={mission.id} class="card" data-mission={mission.id}>
                <div class="titled">
                  <Illustration name={config.missions.find((m) => m.id === mission.id)?.illustration ?? "target"} size={40} />
                  <h3>{mission.title}</h3>
                </div>
                {mission.description ? <p class="muted">{mission.description}</p> : null}
                <Bar value={mission.progress} max={mission.goal.target} label={mission.title} />
                <p class="muted">
                  {t.progress(fmt.number(Math.min(mission.progress, mission.goal.target)), fmt.number(mission.goal.target))} · {t.reward}:{" "}
                  {mission.reward.title}
                </p>
                {mission.claimable ? (
                  <button class="btn primary" onClick={() => void claim(mission.id, mission.title)}>
                    {t.claim}
                  </button>
                ) : mission.claimed ? (
                  <span class="pill ok">{t.claimed}</span>
                ) : mission.completed ? (
                  <span class="pill ok">{t.completed}</span>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Loaded>
    </>
  );
}

function Checkin() {
  const { api, t, fmt, config, refresh, track } = useWidget();
  const state = useLoad(() => api.me.checkin());
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | null>(null);
  const calendar = config.checkin?.calendar ?? [];
  const claim = async () => {
    try {
      const result = await api.me.claimCheckin();
      setNotice({ text: t.checkedIn });
      track("checkin.claimed", { day: result.state.todayIndex });
      await Promise.all([state.reload(), refresh()]);
    } catch (err) {
      setNotice({ text: errorText(err), error: true });
    }
  };
  return (
    <Loaded state={state}>
      {(checkin) => (
        <div class="stack">
          <p class="muted">{t.streak(fmt.number(checkin.streak), checkin.streak)}</p>
          <ol class="calendar" aria-label={t.checkin}>
            {checkin.days.map((day, index) => {
              const slot = calendar[index];
              return (
                <li
                  key={index}
                  class={`day ${day}${slot?.highlight ? " highlight" : ""}${index === checkin.todayIndex ? " today" : ""}`}
                  aria-current={index === checkin.todayIndex ? "date" : undefined}
                >
                  {slot?.illustration ? <Illustration name={slot.illustration} size={28} /> : null}
                  <span class="day-number">{t.day(fmt.number(index + 1))}</span>
                  <span class="day-label">{slot?.label ?? ""}</span>
                  <span class="sr-only">{t.dayState[day] ?? day}</span>
                </li>
              );
            })}
          </ol>
          {checkin.canClaim ? (
            <button class="btn primary" onClick={() => void claim()}>
              {t.checkinNow}
            </button>
          ) : (
            <p class="pill ok" data-testid="checked-in">
              {checkin.claimedToday ? t.checkedIn : ""}
            </p>
          )}
          <Notice text={notice?.text ?? null} error={notice?.error} />
        </div>
      )}
    </Loaded>
  );
}

function Store() {
  const { api, t, fmt, config, refresh, track } = useWidget();
  const store = useLoad(() => api.me.store());
  const [confirming, setConfirming] = useState<{ code: string; title: string; cost: string } | null>(null);
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | null>(null);
  const redeem = async () => {
    const item = confirming!;
    setConfirming(null);
    try {
      await api.me.redeem(item.code, { idempotencyKey: newKey(`w-${item.code}`) });
      setNotice({ text: t.redeemed(item.title) });
      track("store.redeemed", { reward_code: item.code });
      await Promise.all([store.reload(), refresh()]);
    } catch (err) {
      setNotice({ text: errorText(err), error: true });
    }
  };
  return (
    <div class="stack">
      <div class="card">
        <h2>{t.yourBalance}</h2>
        <BalanceList />
      </div>
      <Notice text={notice?.text ?? null} error={notice?.error} />
      <Loaded state={store}>
        {(list) => (
          <ul class="cards" role="list">
            {list.data.map((item) => {
              const cost = fmt.amount(item.cost.amount, item.cost.currency);
              return (
                <li key={item.code} class="card" data-item={item.code}>
                  <Illustration name={config.store.find((entry) => entry.code === item.code)?.illustration} size={48} />
                  <h3>{item.title}</h3>
                  {item.description ? <p class="muted">{item.description}</p> : null}
                  <p class="price">{cost}</p>
                  <button class="btn primary" disabled={!item.affordable} onClick={() => setConfirming({ code: item.code, title: item.title, cost })}>
                    {item.affordable ? t.redeem : t.cannotAfford}
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </Loaded>
      {confirming ? (
        <div class="overlay">
          <div
            class="card dialog"
            role="alertdialog"
            aria-modal="true"
            aria-labelledby="confirm-title"
            onKeyDown={(event) => event.key === "Escape" && setConfirming(null)}
          >
            <h2 id="confirm-title">{t.confirmRedeem(confirming.title, confirming.cost)}</h2>
            <div class="row">
              <button class="btn ghost" onClick={() => setConfirming(null)}>
                {t.cancel}
              </button>
              <button class="btn primary" ref={(el) => el?.focus()} onClick={() => void redeem()}>
                {t.confirm}
              </button>
            </div>
          </div>
        </div>
      ) : null}
    </div>
  );
}

/**
 * The `codes` card: the participant types a promotional code and redeems it
 * (`POST /v1/me/codes/redeem`). The answer says what was granted; a refusal
 * is explained in the widget's language by its stable error code.
 */
function Codes() {
  const { api, t, fmt, config, refresh, track } = useWidget();
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const typed = code.trim();
    if (!typed) return setNotice({ text: t.codeErrors.validation_failed, error: true });
    setBusy(true);
    try {
      const result = await api.me.redeemCode({ code: typed });
      const granted = result.effects.flatMap((effect) => {
        if (effect.type === "currency_granted") return [fmt.amount(effect.amount, effect.currency)];
        if (effect.type === "xp_granted") return [`${fmt.number(effect.amount)} ${t.xp}`];
        if (effect.type === "reward_granted") return [config.rewards.find((reward) => reward.code === effect.reward_code)?.title ?? effect.reward_code];
        return [];
      });
      setNotice({ text: t.codeGranted(granted.join(", ") || result.reward) });
      setCode("");
      track("code.redeemed", { code: result.code });
      await refresh();
    } catch (err) {
      const known = t.codeErrors[(err as { code?: string }).code ?? ""];
      setNotice({ text: known ?? errorText(err), error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card stack" data-testid="codes" onSubmit={(event) => void submit(event)}>
      <label for="promo-code">{t.codeLabel}</label>
      <input
        id="promo-code"
        name="code"
        class="input"
        autocomplete="off"
        autocapitalize="characters"
        spellcheck={false}
        maxLength={64}
        value={code}
        onInput={(event) => setCode((event.target as HTMLInputElement).value)}
        aria-invalid={notice?.error ? "true" : undefined}
        aria-describedby="promo-code-notice"
      />
      <button class="btn primary" type="submit" disabled={busy}>
        {t.redeemCode}
      </button>
      <div id="promo-code-notice">
        <Notice text={notice?.text ?? null} error={notice?.error} />
      </div>
    </form>
  );
}

function Rewards() {
  const { api, t, fmt, config } = useWidget();
  const rewards = useLoad(() => api.me.rewards());
  return (
    <Loaded state={rewards}>
      {(list) =>
        list.data.length === 0 ? (
          <p class="muted">{t.noRewards}</p>
        ) : (
          <ul class="list" role="list">
            {list.data.map((reward) => {
              const configured = config.rewards.find((candidate) => candidate.code === reward.reward_code);
              const howTo = configured?.howToUse;
              return (
                <li key={reward.id} class="card">
                  <div class="titled">
                    <Illustration name={configured?.illustration} size={40} />
                    <h3>{reward.title}</h3>
                  </div>
                  <p class="muted">
                    {fmt.date(reward.granted_at)} · {t.rewardStatus[reward.status] ?? reward.status}
                  </p>
                  {howTo ? (
                    <details>
                      <summary>{t.howToUse}</summary>
                      <p>{howTo}</p>
                    </details>
                  ) : null}
                </li>
              );
            })}
          </ul>
        )
      }
    </Loaded>
  );
}

function Leaderboards() {
  const { api } = useWidget();
  const boards = useLoad(() => api.me.leaderboards());
  return (
    <div class="stack">
      <Tournaments />
      <Loaded state={boards}>
        {(list) => (
          <div class="stack">
            {list.data.map((board) => (
              <Leaderboard key={board.campaign_id} id={board.campaign_id} />
            ))}
          </div>
        )}
      </Loaded>
    </div>
  );
}

/** Tournaments and official tracks: running editions first, then the last results. */
function Tournaments() {
  const { api, t, fmt } = useWidget();
  const editions = useLoad(() => api.me.tournaments({ limit: 5 }));
  return (
    <Loaded state={editions}>
      {(list) => (
        <>
          {[...list.data]
            .sort((a, b) => Number(b.status === "running") - Number(a.status === "running"))
            .map((edition) => (
              <section key={edition.edition_id} class="card" data-tournament={edition.tournament_id}>
                <h2>{edition.title}</h2>
                <p class="muted">
                  {t.tournamentStatus[edition.status]} · {fmt.date(edition.starts_at)} – {fmt.date(edition.ends_at)}
                  {edition.pool_minor !== null && edition.currency ? ` · ${t.pool}: ${fmt.amountMinor(edition.pool_minor, edition.currency)}` : ""}
                </p>
                <ol class="list">
                  {edition.top.map((row) => (
                    <li key={row.rank} class={`row${row.is_me ? " me" : ""}`}>
                      <span>
                        #{fmt.number(row.rank)} {row.is_me ? t.you : (row.display_name ?? "—")}
                      </span>
                      <span>{fmt.number(row.score)}</span>
                    </li>
                  ))}
                </ol>
                <p class="muted">
                  {t.you}: {edition.rank ? `#${fmt.number(edition.rank)}` : "—"} · {fmt.number(edition.score)}
                </p>
              </section>
            ))}
        </>
      )}
    </Loaded>
  );
}

function Leaderboard(props: { id: string }) {
  const { api, t, fmt } = useWidget();
  const board = useLoad(() => api.me.leaderboard(props.id, { limit: 10 }));
  return (
    <Loaded state={board}>
      {(data) => (
        <section class="card">
          <h2>{data.title}</h2>
          <ol class="list">
            {data.entries.map((entry) => (
              <li key={entry.rank} class={`row${entry.is_me ? " me" : ""}`}>
                <span>
                  #{fmt.number(entry.rank)} {entry.is_me ? t.you : (entry.display_name ?? "—")}
                </span>
                <span>{fmt.number(entry.points)}</span>
              </li>
            ))}
          </ol>
          <p class="muted">
            {t.you}: {data.me.rank ? `#${fmt.number(data.me.rank)}` : "—"} · {fmt.number(data.me.points)}
          </p>
        </section>
      )}
    </Loaded>
  );
}

function Notifications() {
  const { api, t, fmt, track } = useWidget();
  const list = useLoad(() => api.me.notifications());
  const markAll = async () => {
    await api.me.markAllRead();
    track("notifications.read");
    await list.reload();
  };
  const markOne = async (id: string) => {
    await api.me.markRead(id);
    await list.reload();
  };
  return (
    <Loaded state={list}>
      {(page) =>
        page.data.length === 0 ? (
          <p class="muted">{t.noNotifications}</p>
        ) : (
          <div class="stack">
            {page.unread_count > 0 ? (
              <button class="btn ghost" onClick={() => void markAll()}>
                {t.markAllRead}
              </button>
            ) : null}
            <ul class="list" role="list">
              {page.data.map((item) => (
                <li key={item.id} class={`card${item.readAt ? "" : " unread"}`}>
                  <h3>
                    {item.title}
                    {item.readAt ? null : <span class="pill"> {t.unread}</span>}
                  </h3>
                  {item.body ? <p>{item.body}</p> : null}
                  <p class="muted">{fmt.date(item.createdAt)}</p>
                  {item.readAt ? null : (
                    <button class="btn ghost" onClick={() => void markOne(item.id)}>
                      ✓
                    </button>
                  )}
                </li>
              ))}
            </ul>
          </div>
        )
      }
    </Loaded>
  );
}

function Cashback() {
  const { api, t, fmt, refresh, track } = useWidget();
  const state = useLoad(() => api.me.cashback());
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | null>(null);
  const claim = async () => {
    try {
      await api.me.claimCashback();
      track("cashback.claimed");
      await Promise.all([state.reload(), refresh()]);
    } catch (err) {
      setNotice({ text: errorText(err), error: true });
    }
  };
  return (
    <Loaded state={state}>
      {(cashback) => (
        <div class="card stack">
          <p>
            {t.available}: <strong>{fmt.money(cashback.available)}</strong>
          </p>
          {cashback.mode === "claim" && cashback.available > 0 ? (
            <button class="btn primary" onClick={() => void claim()}>
              {t.claimCashback}
            </button>
          ) : null}
          <Notice text={notice?.text ?? null} error={notice?.error} />
        </div>
      )}
    </Loaded>
  );
}

function Referral() {
  const { api, t, fmt, track } = useWidget();
  const state = useLoad(() => api.me.referral());
  const [copied, setCopied] = useState(false);
  const copy = async (text: string) => {
    await navigator.clipboard?.writeText(text).catch(() => undefined);
    setCopied(true);
    track("referral.copied");
  };
  return (
    <Loaded state={state}>
      {(referral) => (
        <div class="card stack">
          <p>
            {t.yourCode}: <strong class="code">{referral.code}</strong>
          </p>
          {referral.link ? (
            <div class="row">
              <button class="btn primary" onClick={() => void copy(referral.link!)}>
                {copied ? t.copied : t.copy}
              </button>
              <a class="btn ghost" href={referral.link} target="_blank" rel="noopener">
                {t.share}
              </a>
            </div>
          ) : null}
          <p class="muted">{t.friends(fmt.number(referral.stats.invited))}</p>
        </div>
      )}
    </Loaded>
  );
}

function Badges() {
  const { api, t, fmt } = useWidget();
  const badges = useLoad(() => api.me.badges());
  return (
    <Loaded state={badges}>
      {(list) =>
        list.data.length === 0 ? (
          <p class="muted">{t.noBadges}</p>
        ) : (
          <ul class="cards" role="list">
            {list.data.map((badge, index) => (
              <li key={badge.badge_code} class="card center" data-badge={badge.badge_code}>
                <Badge color={index % 2 ? "var(--secondary)" : null} size={56} />
                <h3>{badge.badge_code}</h3>
                <p class="muted">{fmt.date(badge.granted_at)}</p>
              </li>
            ))}
          </ul>
        )
      }
    </Loaded>
  );
}

function Faq() {
  const { config } = useWidget();
  return (
    <div class="stack">
      {config.faq.map((item, index) => (
        <details key={index} class="card">
          <summary>{item.question}</summary>
          <p class="muted">{item.category}</p>
          <p>{item.answer}</p>
        </details>
      ))}
    </div>
  );
}
