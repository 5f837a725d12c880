// A 20-row pyramid of 1 m cubes (the large_pyramid_b20 scene), 200 steps, the hash.
import { init, World } from 'fixstep';

await init();
const world = World.create({ gravity: [0, -10, 0], enableSleep: false });
world.createBody({ type: 'static', position: [0, -1, 0], shape: { type: 'box', halfExtents: [400, 1, 400] } });
const base = 20;
for (let i = 0; i < base; ++i) {
	for (let j = i; j < base; ++j) {
		world.createBody({
			position: [(i + 1) * 0.5 + (j - i) - 0.5 * base, i + 0.5, 0],
			shape: { type: 'box', halfExtents: [0.5, 0.5, 0.5] },
			density: 100,
		});
	}
}
world.step(200);
console.log(`hash ${world.hash()}`);
world.free();
