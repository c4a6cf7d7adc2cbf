// Durable background jobs (the `jobs` table): queue, claim with one UPDATE … RETURNING, finish, retry or fail.
import { and, eq } from "drizzle-orm";
import type { Clock } from "../../lib/clock";
import type { Db } from "../../db/client";
import { jobs } from "../../db/schema";

export type JobRow = typeof jobs.$inferSelect;

export function enqueueJob(db: Db, clock: Clock, kind: string, subjectId: string): number {
  const now = clock.now();
  const row = db.insert(jobs).values({ kind, subjectId, status: "queued", attempts: 0, nextAttemptAt: now, createdAt: now }).returning({ id: jobs.id }).get();
  return row.id;
}

export function findJob(db: Db, kind: string, subjectId: string): JobRow | undefined {
  return db.select().from(jobs).where(and(eq(jobs.kind, kind), eq(jobs.subjectId, subjectId))).get();
}

interface RawJob {
  id: number;
  kind: string;
  subject_id: string;
  status: JobRow["status"];
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
}

/**
 * Claims the oldest due job of `kind`: queued and due, or running with an expired lock (its process died: a restart
 * resumes it). One statement, so two workers can never claim the same job.
 */
export function claimJob(db: Db, kind: string, now: number, lockMs: number): JobRow | null {
  const raw = db.$client
    .query<RawJob, [number, string, number, number]>(
      `UPDATE jobs SET status = 'running', locked_until = ?1, attempts = attempts + 1
       WHERE id = (SELECT id FROM jobs WHERE kind = ?2 AND ((status = 'queued' AND next_attempt_at <= ?3) OR (status = 'running' AND locked_until < ?4)) ORDER BY id LIMIT 1)
       RETURNING *`,
    )
    .get(now + lockMs, kind, now, now);
  if (!raw) return null;
  return {
    id: raw.id,
    kind: raw.kind,
    subjectId: raw.subject_id,
    status: raw.status,
    attempts: raw.attempts,
    nextAttemptAt: raw.next_attempt_at,
    lockedUntil: raw.locked_until,
    lastError: raw.last_error,
    createdAt: raw.created_at,
  };
}

/** True when a worker could claim the job now (so waking the scheduler will make progress). */
export function isClaimable(job: JobRow, now: number): boolean {
  return (job.status === "queued" && job.nextAttemptAt <= now) || (job.status === "running" && (job.lockedUntil ?? 0) < now);
}

export function finishJob(db: Db, id: number): void {
  db.update(jobs).set({ status: "done", lockedUntil: null }).where(eq(jobs.id, id)).run();
}

export function retryJob(db: Db, id: number, nextAttemptAt: number, error: string): void {
  db.update(jobs).set({ status: "queued", lockedUntil: null, nextAttemptAt, lastError: error }).where(eq(jobs.id, id)).run();
}

export function failJob(db: Db, id: number, error: string): void {
  db.update(jobs).set({ status: "failed", lockedUntil: null, lastError: error }).where(eq(jobs.id, id)).run();
}
