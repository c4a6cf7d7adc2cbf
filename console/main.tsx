// The console's entry: session state, the page chosen by the path, and the layout around it.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { AdminPage } from "./admin";
import { api, currentSession, type Session, whenSignedOut } from "./api";
import { HomePage } from "./home";
import { KeysPage } from "./keys";
import { LoginPage } from "./login";
import { ReferencesPage } from "./references";
import { RunPage, RunsPage } from "./runs";
import { SetupPage } from "./setup";
import { Link, navigate, usePath } from "./ui";
import { WebhooksPage } from "./webhooks";
import { WorkflowsPage } from "./workflows";

const NAV: [string, string][] = [
  ["/console", "Home"],
  ["/console/references", "References"],
  ["/console/workflows", "Workflows"],
  ["/console/runs", "Runs"],
  ["/console/keys", "API keys"],
  ["/console/webhooks", "Webhooks"],
];

function page(path: string, session: Session) {
  const runMatch = /^\/console\/runs\/([^/]+)$/.exec(path);
  if (runMatch) return <RunPage runId={decodeURIComponent(runMatch[1])} />;
  switch (path.replace(/\/$/, "")) {
    case "/console":
      return <HomePage />;
    case "/console/references":
      return <ReferencesPage />;
    case "/console/workflows":
      return <WorkflowsPage />;
    case "/console/runs":
      return <RunsPage />;
    case "/console/keys":
      return <KeysPage />;
    case "/console/webhooks":
      return <WebhooksPage />;
    case "/console/admin":
      return session.user.role === "admin" ? <AdminPage /> : <p>Only administrators can open this page.</p>;
    default:
      return (
        <p>
          No such page. <Link href="/console">Go home</Link>.
        </p>
      );
  }
}

function App() {
  const path = usePath();
  const [session, setSession] = useState(currentSession());
  useEffect(() => whenSignedOut(() => setSession(null)), []);
  // Move focus to the new page's heading so keyboard and screen-reader users know the page changed.
  useEffect(() => {
    document.querySelector<HTMLElement>("main h1")?.focus();
  }, [path]);

  const signedIn = (s: Session) => {
    setSession(s);
    navigate("/console");
  };
  if (path.startsWith("/console/setup")) return <SetupPage onSignedIn={signedIn} />;
  if (!session) return <LoginPage onSignedIn={setSession} />;

  const nav = session.user.role === "admin" ? [...NAV, ["/console/admin", "Admin"] as [string, string]] : NAV;
  const active = (href: string) => (href === "/console" ? path === href || path === "/console/" : path.startsWith(href));
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span class="brand">Assay</span>
        <nav aria-label="Main">
          {nav.map(([href, label]) => (
            <Link key={href} href={href} aria-current={active(href) ? "page" : undefined}>
              {label}
            </Link>
          ))}
        </nav>
        <span class="who">{session.user.email}</span>
        <button
          type="button"
          onClick={async () => {
            await api.logout().catch(() => {});
            setSession(null);
            navigate("/console");
          }}
        >
          Log out
        </button>
      </header>
      <main id="main">{page(path, session)}</main>
    </>
  );
}

render(<App />, document.getElementById("app") as HTMLElement);
