const path = require('node:path');
const { parallel, series, src, dest, task } = require('gulp');

// tsc only emits JavaScript; the icons the nodes and credentials reference must sit beside it.
function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest(path.resolve('dist')));
}

// The output schemas the editor previews before a run, made from the fake service's document.
async function writeOutputSchemas() {
	require('ts-node').register({ transpileOnly: true });
	require('./scripts/output-schemas').writeOutputSchemas(
		path.resolve('dist', 'nodes', 'ContentPublishing'),
		path.resolve('dist', 'nodes', 'ContentPublishingTrigger'),
	);
}

// Last: what this build was made from, so that `npm start` builds again only when a source changed.
async function writeBuildStamp() {
	require('ts-node').register({ transpileOnly: true });
	require('./scripts/build-inputs').writeBuildStamp();
}

task('build:assets', series(parallel(copyIcons, writeOutputSchemas), writeBuildStamp));
