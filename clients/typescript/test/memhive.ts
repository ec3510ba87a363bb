/** A real memhive for the tests: `memhive run` from the repository's environment (or
 * MEMHIVE_BIN) on a fresh data dir and free ports, its dev token an admin of workspace "dev". */

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const REPO = resolve(import.meta.dirname, "..", "..", "..", "..");
export const MEMHIVE_BIN = process.env.MEMHIVE_BIN ?? join(REPO, ".venv", "bin", "memhive");

export interface RunningMemhive {
  url: string;
  token: string;
  stop(): Promise<void>;
}

export async function startMemhive(): Promise<RunningMemhive> {
  if (!existsSync(MEMHIVE_BIN)) throw new Error(`no memhive at ${MEMHIVE_BIN} (make install)`);
  const dataDir = mkdtempSync(join(tmpdir(), "memhive-ts-"));
  const [httpPort, natsPort] = [await freePort(), await freePort()];
  const token = `mh_${randomBytes(8).toString("hex")}_${randomBytes(24).toString("base64url")}`;
  const child = spawn(MEMHIVE_BIN, ["run"], {
    env: {
      ...process.env,
      MEMHIVE_DATA_DIR: dataDir,
      MEMHIVE_HTTP_PORT: String(httpPort),
      MEMHIVE_NATS__URL: `nats://127.0.0.1:${natsPort}`,
      MEMHIVE_DEV_TOKEN: token,
      MEMHIVE_LOG_LEVEL: "WARNING",
      HF_HUB_OFFLINE: "1",
      LITELLM_LOCAL_MODEL_COST_MAP: "True",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (chunk) => (log = (log + chunk).slice(-4000)));
  const url = `http://127.0.0.1:${httpPort}`;
  try {
    await untilReady(url, child, () => log);
  } catch (error) {
    await stop(child, dataDir);
    throw error;
  }
  return { url, token, stop: () => stop(child, dataDir) };
}

async function untilReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`memhive run exited ${child.exitCode}:\n${log()}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`memhive was not ready within 180 s:\n${log()}`);
}

async function stop(child: ChildProcess, dataDir: string): Promise<void> {
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const killed = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await exited;
    clearTimeout(killed);
  }
  rmSync(dataDir, { recursive: true, force: true });
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address ? address.port : 0));
    });
  });
}
