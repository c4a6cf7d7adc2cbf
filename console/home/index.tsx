// Home: the credit balance, credits used this month, runs and credits per day for 30 days, and the latest runs.
import { api, type Run } from "../api";
import { credits, ErrorBox, H1, Link, Status, Table, usePoll, when } from "../ui";

const ACTIVE = new Set(["queued", "running"]);

export function RunTable({ runs }: { runs: Run[] }) {
  return (
    <Table
      columns={["Run", "Status", "Created", "Credits"]}
      items={runs}
      empty="No runs yet."
      row={(r) => (
        <tr key={r.id}>
          <td>
            <Link href={`/console/runs/${r.id}`}>{r.id}</Link>
            {!r.livemode && <span class="tag">test</span>}
          </td>
          <td>
            <Status value={r.status} />
          </td>
          <td>{when(r.created_at)}</td>
          <td>{credits(r.charged_credits ?? r.quoted_credits)}</td>
        </tr>
      )}
    />
  );
}

const DAYS = 30;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Runs and credits per UTC day for the last 30 days. GET /v1/usage reports a period (no per-day grouping), so this
 * asks for each day's period: 30 small requests in parallel, the same figures the API bills by.
 */
async function daily(): Promise<{ day: string; runs: number; credits: number }[]> {
  const today = Date.parse(`${day(Date.now())}T00:00:00Z`);
  const days = Array.from({ length: DAYS }, (_, i) => day(today - (DAYS - 1 - i) * 86_400_000));
  const reports = await Promise.all(days.map((d) => api.usage(d, d)));
  return reports.map((r, i) => ({ day: days[i], runs: r.total_runs, credits: r.total_credits }));
}

/** An inline SVG bar chart (no library, no inline styles: colours come from classes in style.css). */
function UsageChart({ data }: { data: { day: string; runs: number; credits: number }[] }) {
  const W = 600;
  const H = 150;
  const top = 8;
  const bottom = 20;
  const maxRuns = Math.max(1, ...data.map((d) => d.runs));
  const maxCredits = Math.max(1, ...data.map((d) => d.credits));
  const slot = W / data.length;
  const bar = Math.max(1, slot / 2 - 1);
  const h = (v: number, max: number) => ((H - top - bottom) * v) / max;
  const totalRuns = data.reduce((s, d) => s + d.runs, 0);
  const totalCredits = data.reduce((s, d) => s + d.credits, 0);
  const label = (i: number) => data[i].day.slice(5);
  return (
    <figure class="usage-chart">
      <svg
        class="chart"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Runs and credits per day from ${data[0].day} to ${data[data.length - 1].day}: ${totalRuns} runs, ${credits(totalCredits)} credits`}
        data-testid="usage-chart"
      >
        <line class="axis" x1={0} x2={W} y1={H - bottom} y2={H - bottom} />
        {data.map((d, i) => (
          <g key={d.day}>
            <title>
              {d.day}: {d.runs} runs, {credits(d.credits)} credits
            </title>
            <rect class="bar-runs" x={i * slot + 1} y={H - bottom - h(d.runs, maxRuns)} width={bar} height={h(d.runs, maxRuns)} />
            <rect
              class="bar-credits"
              x={i * slot + 1 + bar}
              y={H - bottom - h(d.credits, maxCredits)}
              width={bar}
              height={h(d.credits, maxCredits)}
            />
          </g>
        ))}
        {[0, Math.floor(data.length / 2), data.length - 1].map((i) => (
          <text key={i} x={Math.min(i * slot, W - 40)} y={H - 4}>
            {label(i)}
          </text>
        ))}
      </svg>
      <figcaption class="hint">
        <span class="legend-runs" aria-hidden="true" /> runs (highest {maxRuns} a day) <span class="legend-credits" aria-hidden="true" /> credits
        (highest {credits(maxCredits)} a day), UTC days
      </figcaption>
    </figure>
  );
}

export function HomePage() {
  const perDay = usePoll(daily, 0, () => false);
  const balance = usePoll(api.balance, 0, () => false);
  const usage = usePoll(api.usage, 0, () => false);
  // Poll while any listed run is still queued or running.
  const runs = usePoll(
    () => api.runs({ limit: 10 }),
    2000,
    (page) => page.data.some((r) => ACTIVE.has(r.status)),
  );
  return (
    <>
      <H1>Home</H1>
      <section class="cards" aria-label="Credits">
        <div class="card">
          <h2>Balance</h2>
          <ErrorBox error={balance.error} />
          {balance.value && (
            <>
              <p class="big" data-testid="balance">
                {credits(balance.value.pro_credits)}
              </p>
              <p class="hint">
                {credits(balance.value.regular_pro)} regular + {credits(balance.value.bonus_pro)} bonus pro credits
              </p>
            </>
          )}
        </div>
        <div class="card">
          <h2>Credits used this month</h2>
          <ErrorBox error={usage.error} />
          {usage.value && (
            <>
              <p class="big">{credits(usage.value.total_credits)}</p>
              <p class="hint">
                {usage.value.total_runs} runs, {usage.value.period.from.slice(0, 10)} to {usage.value.period.to.slice(0, 10)}
              </p>
            </>
          )}
        </div>
      </section>
      <section aria-labelledby="home-chart">
        <h2 id="home-chart">Last 30 days</h2>
        <ErrorBox error={perDay.error} />
        {perDay.value && <UsageChart data={perDay.value} />}
      </section>
      <section aria-labelledby="home-runs">
        <h2 id="home-runs">Latest runs</h2>
        <ErrorBox error={runs.error} />
        {runs.value && <RunTable runs={runs.value.data} />}
        <p>
          <Link href="/console/runs">All runs</Link>
        </p>
      </section>
    </>
  );
}
