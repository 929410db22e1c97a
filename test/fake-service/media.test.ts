import { crc32, inflateSync } from 'node:zlib';

import { startFakeService, type FakeService, type JobInput, type JobType } from './index';

/**
 * The fake service's media are real files: PNG slides whose chunks, checksums and pixels are what
 * the format says, and MP4 videos whose boxes, sample table and H.264 parameter sets agree with
 * each other. (That Chromium plays them is checked in test/e2e/browser.e2e.test.ts.)
 */

interface Box {
	type: string;
	/** Where the box's content starts in the buffer it was read from. */
	start: number;
	body: Buffer;
}

/** The boxes in a byte range of an MP4 file: each a 32-bit size (or 1, then a 64-bit size) and a type. */
function boxes(data: Buffer): Box[] {
	const found: Box[] = [];
	for (let at = 0; at < data.length; ) {
		const large = data.readUInt32BE(at) === 1;
		const size = large ? Number(data.readBigUInt64BE(at + 8)) : data.readUInt32BE(at);
		const header = large ? 16 : 8;
		expect(size).toBeGreaterThanOrEqual(header);
		expect(at + size).toBeLessThanOrEqual(data.length);
		found.push({
			type: data.toString('latin1', at + 4, at + 8),
			start: at + header,
			body: data.subarray(at + header, at + size),
		});
		at += size;
	}
	return found;
}

/** Bytes of a container's own fields before the boxes it holds (a sample description's entry count, a visual sample entry). */
const OWN_FIELDS: Record<string, number> = { stsd: 8, avc1: 78 };

/** The content of the box at a path such as `moov/trak/tkhd`. */
function boxAt(data: Buffer, path: string): Buffer {
	let box: Box = { type: '', start: 0, body: data };
	for (const type of path.split('/')) {
		const found = boxes(box.body.subarray(OWN_FIELDS[box.type] ?? 0)).find(
			(inner) => inner.type === type,
		);
		if (!found) throw new Error(`No ${type} box in ${path}`);
		box = found;
	}
	return box.body;
}

/** Reads H.264's Exp-Golomb fields, enough of a sequence parameter set to know its picture size. */
function pictureSize(sps: Buffer): { width: number; height: number } {
	let bit = 32; // after the NAL header, profile, constraints and level
	const u = (count: number) => {
		let value = 0;
		for (let index = 0; index < count; index++, bit++)
			value = value * 2 + ((sps[bit >> 3] >> (7 - (bit & 7))) & 1);
		return value;
	};
	const ue = () => {
		let zeros = 0;
		while (u(1) === 0) zeros++;
		return 2 ** zeros - 1 + u(zeros);
	};
	expect([ue(), ue(), ue()]).toEqual([0, 4, 2]); // seq_parameter_set_id, log2_max_frame_num_minus4, pic_order_cnt_type
	ue(); // max_num_ref_frames
	u(1);
	const [columns, rows] = [ue() + 1, ue() + 1];
	expect([u(1), u(1), u(1)]).toEqual([1, 1, 1]); // frame_mbs_only, direct_8x8_inference, frame_cropping
	const [left, right, top, bottom] = [ue(), ue(), ue(), ue()];
	return { width: columns * 16 - 2 * (left + right), height: rows * 16 - 2 * (top + bottom) };
}

/** Checks that every part of an MP4 video agrees with the others; gives its picture size, length and frame count. */
function readVideo(file: Buffer): {
	width: number;
	height: number;
	seconds: number;
	frames: number;
} {
	const top = boxes(file);
	expect(top.slice(0, 3).map((box) => box.type)).toEqual(['ftyp', 'moov', 'mdat']);
	const [ftyp, moov, mdat] = top;
	expect(ftyp.body.toString('latin1', 0, 4)).toBe('isom');

	const mvhd = boxAt(moov.body, 'mvhd');
	const tkhd = boxAt(moov.body, 'trak/tkhd');
	const mdhd = boxAt(moov.body, 'trak/mdia/mdhd');
	const stbl = boxAt(moov.body, 'trak/mdia/minf/stbl');
	expect(boxAt(moov.body, 'trak/mdia/hdlr').toString('latin1', 8, 12)).toBe('vide');
	const seconds = mvhd.readUInt32BE(16) / mvhd.readUInt32BE(12);
	const frames = mdhd.readUInt32BE(16);
	expect(mdhd.readUInt32BE(16) / mdhd.readUInt32BE(12)).toBe(seconds);
	expect(tkhd.readUInt32BE(20)).toBe(mvhd.readUInt32BE(16)); // the track lasts as long as the movie

	// Sample table: every frame has a time, a size, a place in the one chunk, and the first is a sync sample.
	const stts = boxAt(stbl, 'stts');
	expect([stts.readUInt32BE(4), stts.readUInt32BE(8), stts.readUInt32BE(12)]).toEqual([
		1,
		frames,
		1,
	]);
	expect([...boxAt(stbl, 'stss').subarray(4, 12)]).toEqual([0, 0, 0, 1, 0, 0, 0, 1]);
	const stsc = boxAt(stbl, 'stsc');
	expect([1, 2, 3, 4].map((index) => stsc.readUInt32BE(index * 4))).toEqual([1, 1, frames, 1]);
	const stsz = boxAt(stbl, 'stsz');
	expect([stsz.readUInt32BE(4), stsz.readUInt32BE(8)]).toEqual([0, frames]);
	const sizes = Array.from({ length: frames }, (_, index) => stsz.readUInt32BE(12 + index * 4));
	const stco = boxAt(stbl, 'stco');
	expect([stco.readUInt32BE(4), stco.readUInt32BE(8)]).toEqual([1, mdat.start]);
	expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(mdat.body.length);

	// The decoder configuration: avcC's header repeats its SPS's profile and level, and the SPS's picture is the track's.
	const avc1 = boxAt(stbl, 'stsd/avc1');
	const avcC = boxAt(stbl, 'stsd/avc1/avcC');
	const sps = avcC.subarray(8, 8 + avcC.readUInt16BE(6));
	expect([avcC[0], avcC[4] & 3, avcC[5] & 31]).toEqual([1, 3, 1]); // version, 4-byte lengths, one SPS
	expect([sps[0] & 31, ...sps.subarray(1, 4)]).toEqual([7, ...avcC.subarray(1, 4)]);
	expect(avcC[8 + sps.length] & 31).toBe(1); // one PPS
	expect(avcC[8 + sps.length + 3] & 31).toBe(8);
	const size = pictureSize(sps);
	expect([tkhd.readUInt32BE(76) / 0x10000, tkhd.readUInt32BE(80) / 0x10000]).toEqual([
		size.width,
		size.height,
	]);
	expect([avc1.readUInt16BE(24), avc1.readUInt16BE(26)]).toEqual([size.width, size.height]);

	// Each sample is one length-prefixed NAL unit: an IDR picture first, then non-IDR pictures, none with 00 00 0x inside.
	let at = 0;
	sizes.forEach((sampleSize, index) => {
		const unit = mdat.body.subarray(at + 4, at + sampleSize);
		expect(mdat.body.readUInt32BE(at)).toBe(sampleSize - 4);
		expect(unit[0] & 31).toBe(index === 0 ? 5 : 1);
		expect([0, 1, 2, 3].filter((last) => unit.includes(Buffer.from([0, 0, last])))).toEqual([]);
		at += sampleSize;
	});
	return { ...size, seconds, frames };
}

/** Checks a PNG's signature, chunks and checksums; gives its size and its pixels as RGB rows. */
function readPng(file: Buffer): {
	width: number;
	height: number;
	pixel: (x: number, y: number) => number[];
} {
	expect([...file.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
	const chunks: Array<{ type: string; data: Buffer }> = [];
	for (let at = 8; at < file.length; ) {
		const length = file.readUInt32BE(at);
		const typed = file.subarray(at + 4, at + 8 + length);
		expect(file.readUInt32BE(at + 8 + length)).toBe(crc32(typed));
		chunks.push({ type: typed.toString('latin1', 0, 4), data: typed.subarray(4) });
		at += 12 + length;
	}
	expect(
		chunks.map((chunk) => [chunk.type, chunk.type === 'IEND' ? chunk.data.length : 'data']),
	).toEqual([
		['IHDR', 'data'],
		['IDAT', 'data'],
		['IEND', 0],
	]);
	const header = chunks[0].data;
	const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)];
	expect([...header.subarray(8)]).toEqual([8, 2, 0, 0, 0]); // 8 bits, RGB, deflate, no filtering method beyond the standard, not interlaced
	const rows = inflateSync(chunks[1].data);
	expect(rows.length).toBe(height * (1 + width * 3));
	for (let y = 0; y < height; y++) expect(rows[y * (1 + width * 3)]).toBe(0); // filter type None
	const pixel = (x: number, y: number) => [
		...rows.subarray(y * (1 + width * 3) + 1 + x * 3, y * (1 + width * 3) + 4 + x * 3),
	];
	return { width, height, pixel };
}

let service: FakeService;
beforeAll(async () => (service = await startFakeService()));
afterAll(async () => await service.close());

async function finishedJob(
	type: JobType,
	input: JobInput,
	on = service,
): Promise<Record<string, unknown>> {
	const job = on.startJob(type, input);
	await on.finishJob(job.id, 'succeeded');
	return on.jobs.get(job.id)?.result ?? {};
}

async function download(
	url: string,
	headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; body: Buffer; headers: Headers }> {
	const response = await fetch(url, { headers });
	return {
		status: response.status,
		type: response.headers.get('content-type'),
		body: Buffer.from(await response.arrayBuffer()),
		headers: response.headers,
	};
}

it('serves each carousel slide as a PNG with its number, and no slide past the last', async () => {
	const result = await finishedJob('generate.carousel', { prompt: 'Three points', slide_count: 3 });
	const urls = (result.slides as Array<{ image_url: string }>).map((slide) => slide.image_url);
	for (const url of urls) {
		const { status, type, body } = await download(url);
		expect({ status, type }).toEqual({ status: 200, type: 'image/png' });
		const picture = readPng(body);
		expect([picture.width, picture.height]).toEqual([640, 640]);
		expect(picture.pixel(2, 2)).not.toEqual([255, 255, 255]);
	}
	// Slide 1's "1" has its middle column lit from top to bottom, and its top row nothing else.
	const first = readPng((await download(urls[0])).body);
	expect([first.pixel(320, 210), first.pixel(320, 380)]).toEqual([
		[255, 255, 255],
		[255, 255, 255],
	]);
	expect(first.pixel(270, 210)).not.toEqual([255, 255, 255]);
	expect((await download(urls[0].replace('-slide-1.png', '-slide-4.png'))).status).toBe(404);
});

it.each([
	['16:9', 5, 320, 180],
	['9:16', 12, 180, 320],
	['1:1', 7, 240, 240],
] as const)(
	'serves a %s video of the length its job says, as an H.264 MP4',
	async (aspectRatio, durationSeconds, width, height) => {
		const result = await finishedJob('generate.video', {
			prompt: 'A clip',
			aspect_ratio: aspectRatio,
			duration_seconds: durationSeconds,
		});
		const { status, type, body } = await download(String(result.video_url));
		expect({ status, type }).toEqual({ status: 200, type: 'video/mp4' });
		expect(readVideo(body)).toEqual({
			width,
			height,
			seconds: durationSeconds,
			frames: durationSeconds * 10,
		});
	},
);

it('answers byte ranges of a video, so a player can seek', async () => {
	const result = await finishedJob('generate.video', { prompt: 'A clip' });
	const url = String(result.video_url);
	const whole = (await download(url)).body;
	expect(readVideo(whole).seconds).toBe(30);
	const part = await download(url, { range: 'bytes=100-199' });
	expect({ status: part.status, range: part.headers.get('content-range') }).toEqual({
		status: 206,
		range: `bytes 100-199/${whole.length}`,
	});
	expect(part.body).toEqual(whole.subarray(100, 200));
	const rest = await download(url, { range: `bytes=${whole.length - 10}-` });
	expect(rest.body).toEqual(whole.subarray(whole.length - 10));
	expect((await download(url, { range: `bytes=${whole.length}-` })).status).toBe(416);
});

it('serves no media for a job without any', async () => {
	const job = service.startJob('generate.linkedin', { prompt: 'Text only' });
	await service.finishJob(job.id, 'succeeded');
	expect((await download(`${service.url}/media/${job.id}.mp4`)).status).toBe(404);
	expect((await download(`${service.url}/media/job_unknown.mp4`)).status).toBe(404);
});

it('pads a video to the size asked with a free box, so a large one is still a playable MP4', async () => {
	const large = await startFakeService({ videoBytes: 5 * 2 ** 20 });
	try {
		const result = await finishedJob(
			'generate.video',
			{ prompt: 'A long clip', duration_seconds: 5 },
			large,
		);
		const { body } = await download(String(result.video_url));
		expect(body.length).toBe(5 * 2 ** 20);
		const top = boxes(body);
		expect(top.map((box) => box.type)).toEqual(['ftyp', 'moov', 'mdat', 'free']);
		expect(readVideo(body).seconds).toBe(5);
	} finally {
		await large.close();
	}
});
