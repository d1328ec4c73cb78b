/**
 * Whether another process holds a persisted embedded store. dynalite opens its LevelDB folder
 * lazily and, when another server holds the folder's lock, fails later with "Database is
 * closed" thrown outside any handler; checking first turns that into a clear message.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

interface LevelDb {
  open(): Promise<void>;
  close(): Promise<void>;
}
type LevelModule = { Level: new (path: string) => LevelDb };

// The very `level` that dynalite itself loads.
const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve("dynalite"));

export class StoreLockedError extends Error {
  override readonly name = "StoreLockedError";
}

export async function assertStoreFree(dataDir: string): Promise<void> {
  if (!existsSync(dataDir)) return;
  const { Level } = dynaliteRequire("level") as LevelModule;
  const db = new Level(dataDir);
  try {
    await db.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === "LEVEL_LOCKED")
      throw new StoreLockedError(`another server (or keys command) holds the store in ${dataDir}`);
    throw error;
  }
  await db.close();
}
