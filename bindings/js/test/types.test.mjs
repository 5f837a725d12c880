// The hand-written types (types/fixstep.d.ts) against the API as a
// TypeScript user calls it: test/types/usage.ts type-checks with tsc
// --strict (TypeScript from npm, a devDependency) for targets es2020 and
// es2022 with their default lib (no esnext.disposable), its @ts-expect-error
// lines included; with the disposable lib loaded too (its Symbol.dispose
// merging with the package's), `using` on a World type-checks;
// and a misspelt call is caught. Skipped when TypeScript is not installed
// (npm ci in bindings/js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pkgDir } from './helpers.mjs';

const tsc = join(pkgDir, 'node_modules/typescript/bin/tsc');
const skip = existsSync(tsc) ? false : 'TypeScript is not installed (npm ci in bindings/js)';
const flags = (target, lib) => ['--strict', '--noEmit', '--target', target, '--module', 'esnext', '--moduleResolution', 'bundler', ...(lib ? ['--lib', lib] : [])];

function check(file, target = 'es2022', lib = '') {
	try {
		execFileSync(process.execPath, [tsc, ...flags(target, lib), file], { encoding: 'utf8' });
		return '';
	} catch (e) {
		return String(e.stdout) || String(e);
	}
}

for (const target of ['es2020', 'es2022']) {
	test(`the types: test/types/usage.ts type-checks under tsc --strict --target ${target}, default lib`, { skip }, () => {
		assert.equal(check(join(pkgDir, 'test/types/usage.ts'), target), '');
	});
}

test('the types: `using` on a World with the esnext.disposable lib', { skip }, () => {
	const dir = mkdtempSync(join(pkgDir, 'test/types/tmp-'));
	try {
		const file = join(dir, 'using.ts');
		writeFileSync(file, "import { World } from '../../../types/fixstep';\n" +
			'export function run(): string { using w = World.create(); w.step(); return w.hash(); }\n');
		assert.equal(check(file, 'es2022', 'es2022,esnext.disposable'), '');
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test('the types catch a misspelt call', { skip }, () => {
	const dir = mkdtempSync(join(pkgDir, 'test/types/tmp-'));
	try {
		const file = join(dir, 'bad.ts');
		writeFileSync(file, readFileSync(join(pkgDir, 'test/types/usage.ts'), 'utf8').replaceAll("'../../types/", "'../../../types/").replace('ball.pointVelocity(', 'ball.pointVelocty('));
		const errors = check(file).split('\n').filter((l) => / error TS/.test(l));
		assert.equal(errors.length, 1, errors.join('\n'));
		assert.match(errors[0], /'pointVelocty' does not exist/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
