/**
 * A test-only function for the pool's tests (test/local/functionPool.test.ts), run in the pool's
 * containers as a bundle would be: it holds, sleeps or allocates on request, and says what it saw
 * of its container's module state. Never product code.
 */
interface Ask {
  /** Milliseconds to hold the invocation open. */
  readonly holdMs?: number;
  /** Allocate and keep this many MiB first (more than MemorySize ends the container). */
  readonly allocateMb?: number;
  /** Through the gateway: `?holdMs=…`. */
  readonly queryStringParameters?: { readonly holdMs?: string };
}

/** Module state: one copy per container, as in Lambda. */
let running = 0;
let invocations = 0;
const kept: number[][] = [];

export async function handler(ask: Ask): Promise<{ running: number; invocations: number }> {
  running += 1;
  invocations += 1;
  // Seen at the start, before any await: more than 1 means two invocations share this container.
  const seen = running;
  try {
    for (let mb = 0; mb < (ask.allocateMb ?? 0); mb++)
      kept.push(new Array<number>(131_072).fill(mb + 0.5));
    const holdMs = ask.holdMs ?? Number(ask.queryStringParameters?.holdMs ?? 0);
    await new Promise((done) => setTimeout(done, holdMs));
    return { running: Math.max(seen, running), invocations };
  } finally {
    running -= 1;
  }
}
