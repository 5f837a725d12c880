// The hand-written types (types/fixstep.d.ts) against the API as a
// TypeScript user calls it: test/types/usage.ts type-checks with tsc
// --strict (TypeScript from npm, a devDependency), its @ts-expect-error lines
// included, and a misspelt call is caught. Skipped when TypeScript is not
// installed (npm ci in bindings/js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pkgDir } from './helpers.mjs';

const tsc = join(pkgDir, 'node_modules/typescript/bin/tsc');
const skip = existsSync(tsc) ? false : 'TypeScript is not installed (npm ci in bindings/js)';
const flags = ['--strict', '--noEmit', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--lib', 'es2022,esnext.disposable'];

function check(file) {
	try {
		execFileSync(process.execPath, [tsc, ...flags, file], { encoding: 'utf8' });
		return '';
	} catch (e) {
		return String(e.stdout) || String(e);
	}
}

test('the types: test/types/usage.ts type-checks under tsc --strict', { skip }, () => {
	assert.equal(check(join(pkgDir, 'test/types/usage.ts')), '');
});

test('the types catch a misspelt call', { skip }, () => {
	const dir = mkdtempSync(join(pkgDir, 'test/types/tmp-'));
	try {
		const file = join(dir, 'bad.ts');
		writeFileSync(file, readFileSync(join(pkgDir, 'test/types/usage.ts'), 'utf8').replaceAll("'../../types/fixstep'", "'../../../types/fixstep'").replace('ball.pointVelocity(', 'ball.pointVelocty('));
		const errors = check(file).split('\n').filter((l) => / error TS/.test(l));
		assert.equal(errors.length, 1, errors.join('\n'));
		assert.match(errors[0], /'pointVelocty' does not exist/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
