import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { api, call } from "../api.js";
import { formatDate, formatNumber, t } from "../i18n.js";
import { can } from "../store.js";
import { ConfirmButton, ErrorBox, Field, Loaded, Page, Status, useAction, useQuery } from "../ui.js";

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
            create.run();
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
                      <td>{item.status !== "disabled" && <ConfirmButton label={t("programs.disable")} class="danger" question={t("programs.disable.confirm", { code: item.code })} onConfirm={() => disable.run(item.code)} />}</td>
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
  return (
    <section class="card" aria-labelledby="tournaments">
      <h2 id="tournaments">{t("programs.tournaments")}</h2>
      <Loaded query={list} empty={(l) => l.data.length === 0}>
        {(l) => (
          <ul>
            {l.data.map((tournament) => (
              <li key={tournament.tournament_id}>
                <strong>{tournament.title}</strong> <code>{tournament.tournament_id}</code> ({tournament.kind})
                <ul>
                  {tournament.editions.map((edition) => (
                    <li key={edition.edition_id}>
                      {edition.edition_id}: <Status value={edition.status} /> {formatDate(edition.starts_at)} – {formatDate(edition.ends_at)}, {formatNumber(edition.participants)}{" "}
                      {t("participants.title").toLowerCase()}
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
    </section>
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

function Cashback() {
  const settings = useQuery(() => call(api.GET("/v1/cashback")));
  return (
    <section class="card" aria-labelledby="cashback">
      <h2 id="cashback">{t("programs.cashback")}</h2>
      <Loaded query={settings}>{(data) => <pre class="json">{JSON.stringify(data, null, 2)}</pre>}</Loaded>
    </section>
  );
}
