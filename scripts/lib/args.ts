/**
 * The command lines of the operator's scripts (deploy, keys, load, smoke), read with node:util
 * parseArgs. Every mistake in one becomes a UsageError of one line a person can act on ("unknown
 * option --labl", "--label needs a value"), never parseArgs' own multi-part message or a stack.
 */
import { parseArgs } from "node:util";
import type { ParseArgsConfig } from "node:util";

/** A mistake in the command line: the script says it in one line and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** parseArgs, its failures turned into a UsageError. */
export function parseCommandLine<T extends ParseArgsConfig>(
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(argumentProblem(error), { cause: error });
  }
}

/** One line for a parseArgs failure, from its documented error code (the message as fallback). */
export function argumentProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  // "'--label <value>'", "'-h, --help'", "'--x'": the option's long name where it has one.
  const option = /'(?:-\w, )?(--?[^' ,]+)/.exec(message ?? "")?.[1] ?? "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option ${option}`;
  // The same code covers a string option without its value and a value given to a boolean.
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    return message?.includes("<value>") ? `${option} needs a value` : `${option} takes no value`;
  }
  return message?.split("\n", 1)[0] ?? String(error);
}

/** How a script answers --help and a mistake in its command line. */
export interface CommandLineAnswers {
  readonly help: () => void;
  /** Says the mistake (one line, maybe followed by the usage) on stderr. */
  readonly mistake: (message: string) => void;
}

/**
 * The command line `read` makes of the arguments, or the exit code once answered: 0 for --help
 * (`read` returns "help"), 2 for a UsageError it throws.
 */
export function commandLine<T extends object>(
  read: () => T | "help",
  answers: CommandLineAnswers,
): T | 0 | 2 {
  let value;
  try {
    value = read();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    answers.mistake(error.message);
    return 2;
  }
  if (value !== "help") return value;
  answers.help();
  return 0;
}
