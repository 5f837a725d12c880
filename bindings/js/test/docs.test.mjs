// docs/web.md's JavaScript examples run against the built package: every
// ```js block, its `from 'fixstep'` pointed at dist/fixstep.mjs, must run
// under node without an error, and print exactly its `// → ` lines (the
// page's way of showing output, as check_docs.sh checks the C examples').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pkgDir, repo } from './helpers.mjs';

const page = readFileSync(join(repo, 'docs/web.md'), 'utf8');
const blocks = [...page.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => [page.slice(0, m.index).split('\n').length + 1, m[1]]);
const dist = pathToFileURL(join(pkgDir, 'dist/fixstep.mjs')).href;

test('docs/web.md has JavaScript examples', () => assert.ok(blocks.length >= 2, `${blocks.length} js blocks`));

for (const [line, code] of blocks) {
	test(`docs/web.md:${line}: the example runs and prints its // → lines`, () => {
		const want = code.split('\n').filter((l) => l.startsWith('// → ')).map((l) => l.slice(5));
		const dir = mkdtempSync(join(tmpdir(), 'fixstep-docs-'));
		try {
			const file = join(dir, 'example.mjs');
			writeFileSync(file, code.replaceAll("from 'fixstep'", `from '${dist}'`));
			const got = execFileSync(process.execPath, [file], { encoding: 'utf8' }).split('\n').filter((l, i, a) => l || i < a.length - 1);
			assert.deepEqual(got, want);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
}
