// Home: the credit balance, credits used this period, and the latest runs with their live status.
import { api, type Run } from "../api";
import { credits, ErrorBox, H1, Link, Status, usePoll, when } from "../ui";

const ACTIVE = new Set(["queued", "running"]);

export function RunTable({ runs }: { runs: Run[] }) {
  if (!runs.length) return <p>No runs yet.</p>;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Credits</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
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
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function HomePage() {
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
          <h2>Credits used</h2>
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
