// Shared by the package's tests: where the repository, the native fixstep
// program and the built package are, and how to run the native program.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repo = resolve(pkgDir, '../..');
export const nativeBin = process.env.FIXSTEP_BIN || join(repo, 'build/fixstep');
export const corpusDir = join(repo, 'replays/corpus');

// The native program's output (stdout), failing the test when it fails to run.
export function native(...args) {
	if (!existsSync(nativeBin)) throw new Error(`${nativeBin} is missing: run make first (or set FIXSTEP_BIN)`);
	return execFileSync(nativeBin, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
}

// The native exit status and output of a command that may fail (verify, diff).
export function nativeStatus(...args) {
	try {
		return { status: 0, out: native(...args) };
	} catch (e) {
		if (typeof e.status !== 'number') throw e;
		return { status: e.status, out: String(e.stdout) };
	}
}

// "hash 0123456789abcdef" on the last line -> the hex digits
export function lastHash(out) {
	const m = /hash ([0-9a-f]{16})\s*$/.exec(out.trim());
	if (!m) throw new Error(`no final hash in: ${out.slice(-200)}`);
	return m[1];
}

// The corpus's replays: {scene, file, ticks, players, hash} from MANIFEST.
export function manifest(text) {
	return text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
		const [scene, file, ticks, players, hash] = l.split(/\s+/);
		return { scene, file, ticks: Number(ticks), players: Number(players), hash };
	});
}
