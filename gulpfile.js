const path = require('node:path');
const { src, dest, task } = require('gulp');

// tsc only emits JavaScript; the icons the nodes and credentials reference must sit beside it.
function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(
		dest(path.resolve('dist')),
	);
}

task('build:icons', copyIcons);
