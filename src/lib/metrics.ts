// The process's Prometheus metrics (prom-client), one registry per Context. Counters and histograms are updated where
// things happen; gauges that describe stored state (runs by status, the queue) are read from the database at scrape
// time by the metrics module. prom-client's default Node metrics are not used: under Bun several read as NaN.
// With ASSAY_METRICS off (the default) nothing is counted and prom-client is never loaded: several MB of memory.
import type { Counter, Gauge, GaugeConfiguration, Histogram, Registry } from "prom-client";

type Inc<L extends string> = Pick<Counter<L>, "inc">;
type Observe<L extends string> = Pick<Histogram<L>, "observe">;

export interface Metrics {
  /** What GET /metrics serialises; null when metrics are off. */
  registry: Registry | null;
  /** A gauge in this registry (metrics on only). */
  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, "registers">): Gauge<L>;
  httpRequests: Inc<"method" | "route" | "status">;
  httpDuration: Observe<"method" | "route">;
  runDuration: Observe<"status">;
  runStage: Observe<"stage">;
  runsFinished: Inc<"status" | "product">;
  extractionDuration: Observe<"format" | "outcome">;
  webhookDeliveries: Inc<"outcome">;
  creditsCharged: Inc<string>;
}

const NOTHING = { inc() {}, observe() {} };

/** Metrics that count nothing, for a process with ASSAY_METRICS off. */
const OFF: Metrics = {
  registry: null,
  gauge() {
    throw new Error("metrics are off");
  },
  httpRequests: NOTHING,
  httpDuration: NOTHING,
  runDuration: NOTHING,
  runStage: NOTHING,
  runsFinished: NOTHING,
  extractionDuration: NOTHING,
  webhookDeliveries: NOTHING,
  creditsCharged: NOTHING,
};

export async function createMetrics(on: boolean): Promise<Metrics> {
  if (!on) return OFF;
  const { Counter, Gauge, Histogram, Registry } = await import("prom-client");
  const registry = new Registry();
  const registers = [registry];
  const started = Date.now() / 1000;
  new Gauge({ name: "process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds.", registers }).set(started);
  new Gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes.",
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  new Gauge({
    name: "process_heap_used_bytes",
    help: "JavaScript heap in use, in bytes.",
    registers,
    collect() {
      this.set(process.memoryUsage().heapUsed);
    },
  });
  new Counter({
    name: "process_cpu_seconds_total",
    help: "Total user and system CPU time spent in seconds.",
    registers,
    collect() {
      const { user, system } = process.cpuUsage();
      this.reset();
      this.inc((user + system) / 1e6);
    },
  });
  return {
    registry,
    gauge: (config) => new Gauge({ ...config, registers }),
    httpRequests: new Counter({
      name: "assay_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status.",
      labelNames: ["method", "route", "status"],
      registers,
    }),
    httpDuration: new Histogram({
      name: "assay_http_request_duration_seconds",
      help: "Time from a request's arrival to its response, by method and route pattern.",
      labelNames: ["method", "route"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers,
    }),
    runDuration: new Histogram({
      name: "assay_run_duration_seconds",
      help: "Time from a run's start (or creation, if it never started) to its final status, by that status.",
      labelNames: ["status"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    // Where a run's time goes (issue 13.4): the evaluator's own share against the queue claim, reads, rendering
    // and writes around it.
    runStage: new Histogram({
      name: "assay_run_stage_seconds",
      help: "Time of each stage of executing a run: claim (queue claim, reference check, start), read (workflow and input documents), evaluate (the engine), render (the output file), write (storing the file and finishing the run).",
      labelNames: ["stage"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
      registers,
    }),
    runsFinished: new Counter({
      name: "assay_runs_finished_total",
      help: "Runs that reached a final status (succeeded, failed, canceled) in this process, by status and product.",
      labelNames: ["status", "product"],
      registers,
    }),
    extractionDuration: new Histogram({
      name: "assay_extraction_duration_seconds",
      help: "Text extraction time by detected format and outcome (ok or failed).",
      labelNames: ["format", "outcome"],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    webhookDeliveries: new Counter({
      name: "assay_webhook_deliveries_total",
      help: "Webhook delivery attempts by outcome (delivered, failed, retrying).",
      labelNames: ["outcome"],
      registers,
    }),
    creditsCharged: new Counter({ name: "assay_credits_charged_total", help: "Credits charged for succeeded live runs.", registers }),
  };
}
