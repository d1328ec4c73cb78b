/**
 * A local tool's setup problem (a missing program, an unreachable registry, a bad setting):
 * commands print its message, one line saying what to do, instead of a stack trace.
 */
export class SetupError extends Error {
  override readonly name = "SetupError";
}
