import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { api, call, type Schemas } from "../api.js";
import { formatDate, formatNumber, t, tn } from "../i18n.js";
import { can } from "../store.js";
import { ConfirmButton, ErrorBox, Field, Loaded, Notice, Page, Status, useAction, useQuery } from "../ui.js";

export function Programs() {
  return (
    <Page title={t("programs.title")}>
      <Codes />
      <Tournaments />
      <Affiliates />
      <Cashback />
      <section class="card" aria-labelledby="wheel">
        <h2 id="wheel">Wheel</h2>
        <p>
          <Link href="/participants">{t("participants.title")}</Link> → wheel spins (audit)
        </p>
      </section>
    </Page>
  );
}

function Codes() {
  const codes = useQuery(() => call(api.GET("/v1/codes", { params: { query: { limit: 100 } } })));
  const [code, setCode] = useState("");
  const [reward, setReward] = useState("");
  const create = useAction(async () => {
    const created = await call(api.POST("/v1/codes", { body: { code: code.trim(), reward: JSON.parse(reward) } }));
    codes.reload();
    return created;
  });
  const disable = useAction(async (value: string) => {
    await call(api.POST("/v1/codes/{code}/disable", { params: { path: { code: value } } }));
    codes.reload();
  });
  return (
    <section class="card" aria-labelledby="codes">
      <h2 id="codes">{t("programs.codes")}</h2>
      {can("codes.write") && (
        <form
          class="filters"
          onSubmit={(event) => {
            event.preventDefault();
            void create.run();
          }}
        >
          <Field label={t("programs.code")}>
            <input required value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
          </Field>
          <Field label={`${t("deliveries.reward")} (JSON)`}>
            <input required value={reward} placeholder='{"xp": 100}' onInput={(e) => setReward((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit">+</button>
        </form>
      )}
      {[create.error, disable.error].map((error, index) => error && <ErrorBox key={index} error={error} />)}
      <Loaded query={codes} empty={(list) => list.data.length === 0}>
        {(list) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t("programs.code")}</th>
                  <th scope="col">{t("common.status")}</th>
                  <th scope="col">Usage</th>
                  <th scope="col">{t("common.created")}</th>
                  {can("codes.write") && <th scope="col">{t("common.actions")}</th>}
                </tr>
              </thead>
              <tbody>
                {list.data.map((item) => (
                  <tr key={item.id}>
                    <td>
                      <code>{item.code}</code>
                    </td>
                    <td>
                      <Status value={item.status} />
                    </td>
                    <td class="num">
                      {formatNumber(item.redemptions)}
                      {item.max_redemptions !== null && ` / ${formatNumber(item.max_redemptions)}`}
                    </td>
                    <td>{formatDate(item.created_at)}</td>
                    {can("codes.write") && (
                      <td>
                        {item.status !== "disabled" && (
                          <ConfirmButton
                            label={t("programs.disable")}
                            class="danger"
                            question={t("programs.disable.confirm", { code: item.code })}
                            onConfirm={() => disable.run(item.code)}
                          />
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}

function Tournaments() {
  const list = useQuery(() => call(api.GET("/v1/tournaments")));
  const [shown, setShown] = useState<{ tournament: string; edition: string } | null>(null);
  return (
    <section class="card" aria-labelledby="tournaments">
      <h2 id="tournaments">{t("programs.tournaments")}</h2>
      <Loaded query={list} empty={(l) => l.data.length === 0}>
        {(l) => (
          <ul class="tournaments">
            {l.data.map((tournament) => (
              <li key={tournament.tournament_id}>
                <strong>{tournament.title}</strong> <code>{tournament.tournament_id}</code> ({tournament.kind})
                {tournament.prizes.length > 0 && (
                  <p>
                    {t("programs.prizes")}:{" "}
                    {tournament.prizes
                      .map(
                        (prize) =>
                          `${prize.from === prize.to ? `#${prize.from}` : `#${prize.from}–${prize.to}`} ${prize.amount_minor !== null ? `${formatNumber(prize.amount_minor / 100)} ${tournament.currency ?? ""}` : prize.reward}`,
                      )
                      .join(" · ")}
                  </p>
                )}
                <ul>
                  {tournament.editions.map((edition) => {
                    const open = shown?.tournament === tournament.tournament_id && shown.edition === edition.edition_id;
                    return (
                      <li key={edition.edition_id} data-edition={edition.edition_id}>
                        {edition.edition_id}: <Status value={edition.status} /> {t(`programs.settlement.${edition.status}` as "programs.settlement.running")} ·{" "}
                        {formatDate(edition.starts_at)} – {formatDate(edition.ends_at)}, {tn("programs.players", edition.participants)}
                        {edition.pool_minor !== null && ` · ${t("programs.pool")} ${formatNumber(edition.pool_minor / 100)} ${tournament.currency ?? ""}`}{" "}
                        <button
                          type="button"
                          aria-expanded={open}
                          aria-label={`${t("programs.standings")} ${tournament.tournament_id} ${edition.edition_id}`}
                          onClick={() => setShown(open ? null : { tournament: tournament.tournament_id, edition: edition.edition_id })}
                        >
                          {t("programs.standings")}
                        </button>
                        {open && <Standings tournament={tournament.tournament_id} edition={edition.edition_id} />}
                      </li>
                    );
                  })}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}

/** An edition's top of the standings (live while running, final once settled). */
function Standings({ tournament, edition }: { tournament: string; edition: string }) {
  const page = useQuery(
    () =>
      call(
        api.GET("/v1/tournaments/{tournament_id}/editions/{edition_id}/standings", {
          params: { path: { tournament_id: tournament, edition_id: edition }, query: { limit: 20 } },
        }),
      ),
    [tournament, edition],
  );
  return (
    <Loaded query={page} empty={(p) => p.data.length === 0}>
      {(p) => (
        <div class="table-wrap">
          <table>
            <caption>{t("programs.standings.caption", { edition })}</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">{t("common.participant")}</th>
                <th scope="col">{t("programs.score")}</th>
              </tr>
            </thead>
            <tbody>
              {p.data.map((row) => (
                <tr key={row.participant_id}>
                  <td class="num">{row.rank}</td>
                  <td>
                    <Link href={`/participants/${encodeURIComponent(row.external_id)}`}>{row.display_name ?? row.external_id}</Link>
                  </td>
                  <td class="num">{formatNumber(Number(row.score))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Loaded>
  );
}

function Affiliates() {
  const report = useQuery(() => call(api.GET("/v1/affiliates/report", { params: { query: { limit: 100 } } })));
  return (
    <section class="card" aria-labelledby="affiliates">
      <h2 id="affiliates">{t("programs.affiliates")}</h2>
      <a href="/v1/affiliates/report.csv" download>
        {t("programs.affiliates.csv")}
      </a>
      <Loaded query={report} empty={(r) => r.data.length === 0}>
        {(r) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t("programs.code")}</th>
                  <th scope="col">Players</th>
                  <th scope="col">FTD</th>
                  <th scope="col">NGR ({r.currency})</th>
                </tr>
              </thead>
              <tbody>
                {r.data.map((row) => (
                  <tr key={row.affiliate_id}>
                    <td>{row.code}</td>
                    <td class="num">{formatNumber(row.players_attributed)}</td>
                    <td class="num">{formatNumber(row.first_deposits)}</td>
                    <td class="num">{formatNumber(row.net_gaming_result_minor / 100)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}

type CashbackProgram = Schemas["CashbackProgram"];

/** Main units typed by staff ("50", "50.5", "50,50") to exact cents, without floating point. */
export function toMinor(text: string): number | null {
  const match = /^\s*(\d+)(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

function Cashback() {
  const settings = useQuery(() => call(api.GET("/v1/cashback")));
  return (
    <section class="card" aria-labelledby="cashback">
      <h2 id="cashback">{t("programs.cashback")}</h2>
      <Loaded query={settings}>
        {(data) => (can("config.write") ? <CashbackForm program={data} onSaved={settings.reload} /> : <CashbackFacts program={data} />)}
      </Loaded>
    </section>
  );
}

function CashbackFacts({ program }: { program: CashbackProgram }) {
  return (
    <dl class="facts">
      <dt>{t("common.status")}</dt>
      <dd>{program.enabled ? t("webhooks.enabled") : t("webhooks.disabled")}</dd>
      <dt>{t("cashback.mode")}</dt>
      <dd>{program.mode}</dd>
      <dt>{t("cashback.hour")}</dt>
      <dd>{program.hour}</dd>
      <dt>{t("cashback.min_loss")}</dt>
      <dd>
        {formatNumber(Number(program.min_loss))} {program.currency}
      </dd>
      <dt>{t("cashback.pct")}</dt>
      <dd>
        {String(program.min_pct)}–{String(program.max_pct)}%
      </dd>
      <dt>{t("cashback.tiers")}</dt>
      <dd>{program.tiers.map((tier) => `${tier.name} ≥ ${formatNumber(Number(tier.min_loss))}: ${String(tier.pct)}%`).join(" · ") || t("common.none")}</dd>
    </dl>
  );
}

/** The cashback program's settings, saved at once (no publishing): every field at its current value. */
function CashbackForm({ program, onSaved }: { program: CashbackProgram; onSaved: () => void }) {
  const [enabled, setEnabled] = useState(program.enabled);
  const [mode, setMode] = useState(program.mode);
  const [hour, setHour] = useState(String(program.hour));
  const [claimDays, setClaimDays] = useState(String(program.claim_days));
  const [minLoss, setMinLoss] = useState(String(program.min_loss));
  const [minPct, setMinPct] = useState(String(program.min_pct));
  const [maxPct, setMaxPct] = useState(String(program.max_pct));
  const [tiers, setTiers] = useState(program.tiers.map((tier) => ({ name: tier.name, min_loss: String(tier.min_loss), pct: String(tier.pct) })));
  const save = useAction(async () => {
    const minor = (text: string, field: string) => {
      const value = toMinor(text);
      if (value === null) throw { code: "validation_failed", message: `${field}: ${t("cashback.money.invalid")}` };
      return value;
    };
    const body: Schemas["CashbackProgramUpdate"] = {
      enabled,
      mode,
      hour: Number(hour),
      claim_days: Number(claimDays),
      min_loss_minor: minor(minLoss, t("cashback.min_loss")),
      min_pct: Number(minPct.trim().replace(",", ".")),
      max_pct: Number(maxPct.trim().replace(",", ".")),
      tiers: tiers.map((tier, index) => ({
        name: tier.name.trim(),
        min_loss_minor: minor(tier.min_loss, `${t("cashback.tiers")} ${index + 1}`),
        pct: Number(tier.pct.trim().replace(",", ".")),
      })),
    };
    const saved = await call(api.PUT("/v1/cashback", { body }));
    onSaved();
    return saved;
  });
  const setTier = (index: number, field: "name" | "min_loss" | "pct", value: string) =>
    setTiers(tiers.map((tier, i) => (i === index ? { ...tier, [field]: value } : tier)));
  return (
    <form
      class="stack"
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      <label class="check">
        <input type="checkbox" name="cashback-enabled" checked={enabled} onChange={(e) => setEnabled((e.target as HTMLInputElement).checked)} />{" "}
        {t("cashback.enabled")}
      </label>
      <div class="filters">
        <Field label={t("cashback.mode")}>
          <select name="cashback-mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as typeof mode)}>
            <option value="auto">{t("cashback.mode.auto")}</option>
            <option value="claim">{t("cashback.mode.claim")}</option>
          </select>
        </Field>
        <Field label={t("cashback.hour")}>
          <input name="cashback-hour" type="number" min={0} max={23} required value={hour} onInput={(e) => setHour((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("cashback.claim_days")}>
          <input
            name="cashback-claim-days"
            type="number"
            min={1}
            max={30}
            required
            value={claimDays}
            onInput={(e) => setClaimDays((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={`${t("cashback.min_loss")} (${program.currency})`}>
          <input name="cashback-min-loss" inputMode="decimal" required value={minLoss} onInput={(e) => setMinLoss((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("cashback.min_pct")}>
          <input name="cashback-min-pct" inputMode="decimal" required value={minPct} onInput={(e) => setMinPct((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t("cashback.max_pct")}>
          <input name="cashback-max-pct" inputMode="decimal" required value={maxPct} onInput={(e) => setMaxPct((e.target as HTMLInputElement).value)} />
        </Field>
      </div>
      <fieldset>
        <legend>{t("cashback.tiers")}</legend>
        {tiers.length === 0 && <p class="empty">{t("state.empty")}</p>}
        {tiers.map((tier, index) => (
          <div class="filters" key={index} data-tier={index}>
            <Field label={`${t("cashback.tier.name")} ${index + 1}`}>
              <input value={tier.name} required maxLength={40} onInput={(e) => setTier(index, "name", (e.target as HTMLInputElement).value)} />
            </Field>
            <Field label={`${t("cashback.min_loss")} ${index + 1} (${program.currency})`}>
              <input value={tier.min_loss} inputMode="decimal" required onInput={(e) => setTier(index, "min_loss", (e.target as HTMLInputElement).value)} />
            </Field>
            <Field label={`${t("cashback.tier.pct")} ${index + 1}`}>
              <input value={tier.pct} inputMode="decimal" required onInput={(e) => setTier(index, "pct", (e.target as HTMLInputElement).value)} />
            </Field>
            <button type="button" onClick={() => setTiers(tiers.filter((_, i) => i !== index))} aria-label={`${t("cashback.tier.remove")} ${index + 1}`}>
              {t("cashback.tier.remove")}
            </button>
          </div>
        ))}
        {tiers.length < 10 && (
          <button type="button" onClick={() => setTiers([...tiers, { name: "", min_loss: "", pct: "" }])}>
            {t("cashback.tier.add")}
          </button>
        )}
      </fieldset>
      <div class="row">
        <button type="submit" class="primary" disabled={save.pending}>
          {t("cashback.save")}
        </button>
      </div>
      {save.error && <ErrorBox error={save.error} />}
      {save.result && !save.pending && <Notice>{t("state.saved")}</Notice>}
    </form>
  );
}
