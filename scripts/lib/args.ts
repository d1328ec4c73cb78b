/**
 * The command lines of the project's scripts (start, build, docs, client:generate, bench, dev,
 * smoke, deploy, invoke, keys, load, mutation), read with node:util parseArgs. Every
 * mistake in one becomes a UsageError of one line a person can act on, naming the script ("keys:
 * unknown option --labl (npm run keys -- --help)"), never parseArgs' own multi-part message or a
 * stack; exit 2.
 * `--help` (or `-h`) prints the script's usage and exits 0, before anything runs.
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
    // A value starting with a dash reads as another option: parseArgs calls it ambiguous.
    if (message?.includes("ambiguous"))
      return `${option}'s value starts with a dash: write ${option}=<value> if you meant it`;
    return message?.includes("<value>") ? `${option} needs a value` : `${option} takes no value`;
  }
  return message?.split("\n", 1)[0] ?? String(error);
}

/** How a script answers --help and a mistake in its command line. */
export interface CommandLineAnswers {
  readonly help: () => void;
  /** Says the mistake in one line on stderr. */
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

/** The one line a mistake in `script`'s command line ends in. */
export function mistakeLine(script: string, message: string): string {
  const help = script === "npm start" ? "npm start -- --help" : `npm run ${script} -- --help`;
  return `${script}: ${message} (${help})`;
}

/** The answers of a script that prints its usage on --help and one line for a mistake. */
export function answersOf(script: string, usage: string): CommandLineAnswers {
  return {
    help: () => process.stdout.write(`${usage}\n`),
    mistake: (message) => process.stderr.write(`${mistakeLine(script, message)}\n`),
  };
}

/**
 * The command line of a script with options only (`help` is added): its values, or the process
 * ends, with the usage on stdout for --help (0) or one line on stderr for a mistake (2).
 */
export function optionsOrExit<T extends NonNullable<ParseArgsConfig["options"]>>(
  script: string,
  usage: string,
  args: readonly string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T }>>["values"] {
  const read = commandLine(
    () => {
      const { values } = parseCommandLine({
        args: [...args],
        options: { ...options, help: { type: "boolean", short: "h" } },
      });
      return (values as { help?: boolean }).help === true ? "help" : { values };
    },
    answersOf(script, usage),
  );
  if (typeof read === "number") process.exit(read);
  return read.values;
}
