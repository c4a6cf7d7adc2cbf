// Durable background jobs (the `jobs` table) on the one work queue: enqueue, claim, finish, retry or fail.
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { jobs } from "../../db/schema";
import { claim, firstWaiting, type QueueSpec } from "../../jobs/queue";
import type { Clock } from "../../lib/clock";

export type JobRow = typeof jobs.$inferSelect;

/** Queues a job, due now; answers its id. Call inside a transaction: `db` is its handle. */
export async function enqueueJob(db: Db, clock: Clock, kind: string, subjectId: string): Promise<number> {
  const now = clock.now();
  const [row] = await db
    .insert(jobs)
    .values({ kind, subjectId, status: "queued", attempts: 0, nextAttemptAt: now, createdAt: now })
    .returning({ id: jobs.id });
  return row.id;
}

export async function findJob(db: Db, kind: string, subjectId: string): Promise<JobRow | undefined> {
  const [row] = await db
    .select()
    .from(jobs)
    .where(and(eq(jobs.kind, kind), eq(jobs.subjectId, subjectId)))
    .limit(1);
  return row;
}

/**
 * Due jobs of one kind: queued and due, or running with an expired lease (its process died: a restart resumes it).
 * Oldest first; the claim marks the job running and counts the attempt.
 */
const jobQueue = (kind: string): QueueSpec<typeof jobs> => ({
  source: jobs,
  table: "jobs",
  pick: firstWaiting(
    "jobs",
    `q.kind = '${kind.replaceAll("'", "''")}' AND ((q.status = 'queued' AND q.next_attempt_at <= $now) OR q.status = 'running')`,
    "q.id",
  ),
  onClaim: "status = 'running', attempts = attempts + 1",
});

/** Claims the oldest due job of `kind` through the one work queue; null when none is due. */
export async function claimJob(db: Db, kind: string, now: number, lockMs: number): Promise<JobRow | null> {
  return await claim(db, jobQueue(kind), now, lockMs);
}

/** True when a worker could claim the job now (so waking the scheduler will make progress): the queue's rule. */
export function isClaimable(job: JobRow, now: number): boolean {
  const free = job.lockedUntil === null || job.lockedUntil <= now;
  return free && ((job.status === "queued" && job.nextAttemptAt <= now) || job.status === "running");
}

// finishJob, retryJob, failJob: call inside a transaction (`db` is its handle).

export async function finishJob(db: Db, id: number): Promise<void> {
  await db.update(jobs).set({ status: "done", lockedUntil: null }).where(eq(jobs.id, id));
}

export async function retryJob(db: Db, id: number, nextAttemptAt: number, error: string): Promise<void> {
  await db.update(jobs).set({ status: "queued", lockedUntil: null, nextAttemptAt, lastError: error }).where(eq(jobs.id, id));
}

export async function failJob(db: Db, id: number, error: string): Promise<void> {
  await db.update(jobs).set({ status: "failed", lockedUntil: null, lastError: error }).where(eq(jobs.id, id));
}
