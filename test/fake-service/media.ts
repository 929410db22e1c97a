/**
 * Real media for the fake service, made with Node's built-ins only: carousel slides as PNG (zlib)
 * and videos as MP4 with H.264, so that what a person opens in the demo is a picture and a video
 * that play, not bytes that only look like them.
 *
 * The video needs no H.264 encoder: every macroblock that changes is sent as I_PCM (its raw
 * samples) and every macroblock that does not is skipped (copied from the frame before), so each
 * frame costs only what moves on it.
 */
import { crc32, deflateSync } from 'node:zlib';

import type { VIDEO_ASPECT_RATIOS } from './openapi';

type Rgb = readonly [number, number, number];

/** Colours dark enough for white to read on; a job keeps its colour across its slides and video. */
const PALETTE: Rgb[] = [
	[37, 99, 235],
	[22, 128, 90],
	[190, 60, 50],
	[124, 58, 237],
	[200, 100, 20],
	[15, 118, 140],
	[190, 40, 110],
	[70, 85, 105],
];
const WHITE: Rgb = [255, 255, 255];

export const colourOf = (id: string): Rgb => PALETTE[crc32(id) % PALETTE.length];

/** Digits 0–9 in a 3×5 block font, row by row. */
const DIGITS = [
	'111101101101111',
	'010110010010111',
	'111001111100111',
	'111001111001111',
	'101101111001001',
	'111100111001111',
	'111100111101111',
	'111001001001001',
	'111101111101111',
	'111101111001111',
];

/** An RGB picture that rectangles and digits are drawn on. */
class Canvas {
	readonly pixels: Buffer;

	constructor(
		readonly width: number,
		readonly height: number,
	) {
		this.pixels = Buffer.alloc(width * height * 3);
	}

	fill(x: number, y: number, width: number, height: number, colour: Rgb): void {
		const pattern = Buffer.from(colour);
		// Full lines are one run of bytes: one call fills them all.
		if (width === this.width)
			this.pixels.fill(pattern, y * this.width * 3, (y + height) * this.width * 3);
		else
			for (let row = y; row < y + height; row++)
				this.pixels.fill(pattern, (row * this.width + x) * 3, (row * this.width + x + width) * 3);
	}

	/** `text` (digits) centred on (x, y), `scale` pixels a block, with a block between digits. */
	digits(text: string, x: number, y: number, scale: number, colour: Rgb): void {
		const left = x - Math.round(((text.length * 4 - 1) * scale) / 2);
		const top = y - Math.round((5 * scale) / 2);
		[...text].forEach((digit, index) => {
			[...DIGITS[Number(digit)]].forEach((bit, cell) => {
				if (bit === '1')
					this.fill(
						left + (index * 4 + (cell % 3)) * scale,
						top + Math.floor(cell / 3) * scale,
						scale,
						scale,
						colour,
					);
			});
		});
	}
}

/** Makes each file once: a job's file is asked for again (a preview, a download), and videos take a while. */
const made = new Map<string, Buffer>();
function once(key: string, make: () => Buffer): Buffer {
	let file = made.get(key);
	if (!file) {
		if (made.size >= 32) made.delete(made.keys().next().value ?? '');
		made.set(key, (file = make()));
	}
	return file;
}

// --- PNG -------------------------------------------------------------------------------------

const SLIDE_SIZE = 640;

function pngChunk(type: string, data: Buffer): Buffer {
	const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
	return Buffer.concat([u32(data.length), typed, u32(crc32(typed))]);
}

/** An 8-bit RGB PNG: each row starts with filter type 0 (none) and deflate does the compressing. */
function png(canvas: Canvas): Buffer {
	const rowBytes = canvas.width * 3;
	const rows = Buffer.alloc((rowBytes + 1) * canvas.height);
	for (let y = 0; y < canvas.height; y++)
		canvas.pixels.copy(rows, y * (rowBytes + 1) + 1, y * rowBytes, (y + 1) * rowBytes);
	const header = Buffer.concat([u32(canvas.width, canvas.height), Buffer.from([8, 2, 0, 0, 0])]);
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		pngChunk('IHDR', header),
		pngChunk('IDAT', deflateSync(rows)),
		pngChunk('IEND', Buffer.alloc(0)),
	]);
}

/** Slide `number` of `count`: the job's colour fading down, the number large, and a dot per slide. */
export function slidePng(colour: Rgb, number: number, count: number): Buffer {
	return once(`slide ${colour.join()} ${number} ${count}`, () => {
		const canvas = new Canvas(SLIDE_SIZE, SLIDE_SIZE);
		for (let y = 0; y < SLIDE_SIZE; y++) {
			const shade = 1 - (0.5 * y) / SLIDE_SIZE;
			canvas.fill(0, y, SLIDE_SIZE, 1, [
				Math.round(colour[0] * shade),
				Math.round(colour[1] * shade),
				Math.round(colour[2] * shade),
			]);
		}
		canvas.digits(String(number), SLIDE_SIZE / 2, SLIDE_SIZE / 2 - 20, 40, WHITE);
		const dots = Math.min(count, 20);
		for (let dot = 0; dot < dots; dot++) {
			const x = SLIDE_SIZE / 2 + (dot - dots / 2) * 28 + 6;
			canvas.fill(x, SLIDE_SIZE - 60, 16, 16, dot === number - 1 ? WHITE : [160, 160, 160]);
		}
		return png(canvas);
	});
}

// --- H.264 -----------------------------------------------------------------------------------

/** Writes the bit fields of H.264's syntax: u(n), ue(v) (Exp-Golomb) and byte-aligned raw bytes. */
class Bits {
	private readonly bytes: number[] = [];
	private current = 0;
	private used = 0;

	u(count: number, value: number): this {
		for (let bit = count - 1; bit >= 0; bit--) {
			this.current = (this.current << 1) | (Math.floor(value / 2 ** bit) & 1);
			if (++this.used === 8) {
				this.bytes.push(this.current);
				this.current = this.used = 0;
			}
		}
		return this;
	}

	ue(value: number): this {
		const length = 31 - Math.clz32(value + 1);
		return this.u(length, 0).u(length + 1, value + 1);
	}

	/** Zero bits up to the next byte (pcm_alignment_zero_bit, and the end of rbsp_trailing_bits). */
	align(): this {
		while (this.used !== 0) this.u(1, 0);
		return this;
	}

	raw(bytes: Buffer): this {
		for (const byte of bytes) this.bytes.push(byte);
		return this;
	}

	/** rbsp_trailing_bits: a stop bit, then zeros to the byte. */
	end(): Buffer {
		this.u(1, 1).align();
		return Buffer.from(this.bytes);
	}
}

/**
 * A NAL unit; nal_ref_idc 3, as every picture is the reference for the next. No emulation
 * prevention is needed: no payload holds 00 00 0x, as samples are at least 16 (limited range) and
 * no run of syntax bits here has 16 zeros in a row (the test checks every unit for it).
 */
const nal = (type: number, payload: Buffer) => Buffer.concat([Buffer.from([0x60 | type]), payload]);

const PROFILE = 66; // Baseline
const CONSTRAINTS = 0xc0; // constraint_set0 and 1: Constrained Baseline, the profile every decoder has
const LEVEL = 30; // 3.0: the raw first frame (under 1 Mbit) fits its 10 Mbit buffer
const FRAME_NUM_BITS = 8;

/** Sequence parameter set: picture size (in macroblocks, cropped to the real size), one reference frame, no reordering. */
function sequenceParameterSet(width: number, height: number): Buffer {
	const columns = Math.ceil(width / 16);
	const rows = Math.ceil(height / 16);
	return nal(
		7,
		new Bits()
			.u(8, PROFILE)
			.u(8, CONSTRAINTS)
			.u(8, LEVEL)
			.ue(0) // seq_parameter_set_id
			.ue(FRAME_NUM_BITS - 4) // log2_max_frame_num_minus4
			.ue(2) // pic_order_cnt_type 2: shown in decoding order, nothing more to signal
			.ue(1) // max_num_ref_frames
			.u(1, 0) // gaps_in_frame_num_value_allowed_flag
			.ue(columns - 1)
			.ue(rows - 1)
			.u(1, 1) // frame_mbs_only_flag: frames, no fields
			.u(1, 1) // direct_8x8_inference_flag
			.u(1, 1) // frame_cropping_flag, in units of 2 pixels for 4:2:0
			.ue(0)
			.ue((columns * 16 - width) / 2)
			.ue(0)
			.ue((rows * 16 - height) / 2)
			.u(1, 0) // vui_parameters_present_flag: the MP4 carries the timing
			.end(),
	);
}

/** Picture parameter set: CAVLC (no arithmetic coding to write) and a switch to turn the deblocking filter off. */
const PICTURE_PARAMETER_SET = nal(
	8,
	new Bits()
		.ue(0) // pic_parameter_set_id
		.ue(0) // seq_parameter_set_id
		.u(1, 0) // entropy_coding_mode_flag: CAVLC
		.u(1, 0) // bottom_field_pic_order_in_frame_present_flag
		.ue(0) // num_slice_groups_minus1
		.ue(0) // num_ref_idx_l0_default_active_minus1
		.ue(0) // num_ref_idx_l1_default_active_minus1
		.u(1, 0) // weighted_pred_flag
		.u(2, 0) // weighted_bipred_idc
		.ue(0) // pic_init_qp_minus26 (se(0) is ue(0))
		.ue(0) // pic_init_qs_minus26
		.ue(0) // chroma_qp_index_offset
		.u(1, 1) // deblocking_filter_control_present_flag
		.u(1, 0) // constrained_intra_pred_flag
		.u(1, 0) // redundant_pic_cnt_present_flag
		.end(),
);

const I_PCM_IN_I_SLICE = 25;
const I_PCM_IN_P_SLICE = 30; // P slices number their 5 inter types first

/**
 * One frame as one slice: the first an IDR picture with every macroblock raw, the others P
 * pictures where `undefined` macroblocks are skipped. A skipped macroblock's motion is predicted
 * from neighbours that are all skipped at motion 0 or intra, so it is always a plain copy.
 */
function slice(frame: number, macroblocks: Array<Buffer | undefined>): Buffer {
	const idr = frame === 0;
	const bits = new Bits()
		.ue(0) // first_mb_in_slice
		.ue(idr ? 7 : 5) // slice_type: I or P, as every slice of the picture
		.ue(0) // pic_parameter_set_id
		.u(FRAME_NUM_BITS, frame % 2 ** FRAME_NUM_BITS);
	if (idr)
		bits.ue(0).u(1, 0).u(1, 0); // idr_pic_id; no_output_of_prior_pics_flag, long_term_reference_flag
	else bits.u(1, 0).u(1, 0).u(1, 0); // num_ref_idx_active_override_flag, ref_pic_list_modification_flag_l0, adaptive_ref_pic_marking_mode_flag
	bits.ue(0).ue(1); // slice_qp_delta 0 (se), disable_deblocking_filter_idc 1: raw samples are shown as they are
	let skipped = 0;
	for (const samples of macroblocks) {
		if (samples === undefined) {
			skipped++;
			continue;
		}
		if (!idr) bits.ue(skipped); // mb_skip_run
		skipped = 0;
		bits
			.ue(idr ? I_PCM_IN_I_SLICE : I_PCM_IN_P_SLICE)
			.align()
			.raw(samples);
	}
	if (skipped > 0) bits.ue(skipped);
	return nal(idr ? 5 : 1, bits.end());
}

/** A macroblock's I_PCM samples: 16×16 luma, then 8×8 Cb and 8×8 Cr, each averaged over 2×2 pixels (BT.601, limited range). */
function macroblock({ pixels, width }: Canvas, column: number, row: number): Buffer {
	const samples = Buffer.alloc(384);
	for (let y = 0; y < 16; y++) {
		for (let x = 0; x < 16; x++) {
			const p = ((row * 16 + y) * width + column * 16 + x) * 3;
			samples[y * 16 + x] = Math.round(
				16 + (65.738 * pixels[p] + 129.057 * pixels[p + 1] + 25.064 * pixels[p + 2]) / 256,
			);
			if (x % 2 === 1 && y % 2 === 1) {
				// The 2×2 block this pixel ends: the pixels before it, above it, and above and before.
				const average = (c: number) =>
					(pixels[p + c] +
						pixels[p + c - 3] +
						pixels[p + c - width * 3] +
						pixels[p + c - width * 3 - 3]) /
					4;
				const [r, g, b] = [average(0), average(1), average(2)];
				const chroma = 256 + ((y - 1) / 2) * 8 + (x - 1) / 2;
				samples[chroma] = Math.round(128 + (-37.945 * r - 74.494 * g + 112.439 * b) / 256);
				samples[chroma + 64] = Math.round(128 + (112.439 * r - 94.154 * g - 18.285 * b) / 256);
			}
		}
	}
	return samples;
}

/**
 * Encodes the frames `draw` paints (on a canvas padded to whole macroblocks) as H.264 samples in
 * MP4's length-prefixed form. `draw` answers false when it left the frame before as it was.
 */
function encodeH264(
	width: number,
	height: number,
	frames: number,
	draw: (canvas: Canvas, frame: number) => boolean,
): Buffer[] {
	const canvas = new Canvas(Math.ceil(width / 16) * 16, Math.ceil(height / 16) * 16);
	const before = Buffer.alloc(canvas.pixels.length);
	const line = canvas.width * 3;
	const same = (start: number, end: number) =>
		canvas.pixels.compare(before, start, end, start, end) === 0;
	const sameMacroblock = (column: number, row: number) => {
		for (let y = row * 16; y < row * 16 + 16; y++)
			if (!same(y * line + column * 48, y * line + column * 48 + 48)) return false;
		return true;
	};
	const samples: Buffer[] = [];
	for (let frame = 0; frame < frames; frame++) {
		const drawn = draw(canvas, frame);
		const macroblocks: Array<Buffer | undefined> = [];
		for (let row = 0; row < canvas.height / 16; row++) {
			// The IDR picture skips nothing; later, most bands of 16 lines are unchanged, and one comparison skips a whole row of macroblocks.
			const bandSame = frame > 0 && (!drawn || same(row * 16 * line, (row + 1) * 16 * line));
			for (let column = 0; column < canvas.width / 16; column++) {
				const skip = frame > 0 && (bandSame || sameMacroblock(column, row));
				macroblocks.push(skip ? undefined : macroblock(canvas, column, row));
			}
		}
		if (drawn) canvas.pixels.copy(before);
		const unit = slice(frame, macroblocks);
		samples.push(Buffer.concat([u32(unit.length), unit]));
	}
	return samples;
}

// --- MP4 -------------------------------------------------------------------------------------

function u32(...values: number[]): Buffer {
	const buffer = Buffer.alloc(values.length * 4);
	values.forEach((value, index) => buffer.writeUInt32BE(value, index * 4));
	return buffer;
}

function u16(...values: number[]): Buffer {
	const buffer = Buffer.alloc(values.length * 2);
	values.forEach((value, index) => buffer.writeUInt16BE(value, index * 2));
	return buffer;
}

function box(type: string, ...content: Array<Buffer | string>): Buffer {
	const body = Buffer.concat(
		content.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part)),
	);
	return Buffer.concat([u32(body.length + 8), Buffer.from(type, 'latin1'), body]);
}

const zeros = (count: number) => Buffer.alloc(count);
/** The identity transformation matrix of mvhd and tkhd (16.16 and 2.30 fixed point). */
const IDENTITY = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);
const FPS = 10;

/**
 * An MP4 file (ISO BMFF) with one H.264 track: ftyp, then moov (before the media, so a player
 * can start while the rest downloads), then mdat. All samples sit in one chunk; only the first
 * is a sync sample (the one IDR picture), which keeps the file small; a seek decodes from it.
 */
function mp4(width: number, height: number, samples: Buffer[]): Buffer {
	const frames = samples.length;
	const milliseconds = (frames * 1000) / FPS;
	const sps = sequenceParameterSet(width, height);
	const avcC = box(
		'avcC',
		Buffer.from([1, PROFILE, CONSTRAINTS, LEVEL, 0xff, 0xe1]),
		u16(sps.length),
		sps,
		Buffer.from([1]),
		u16(PICTURE_PARAMETER_SET.length),
		PICTURE_PARAMETER_SET,
	);
	const moov = (mediaOffset: number) =>
		box(
			'moov',
			box(
				'mvhd',
				u32(0, 0, 0, 1000, milliseconds, 0x10000),
				u16(0x100),
				zeros(10),
				IDENTITY,
				zeros(24),
				u32(2),
			),
			box(
				'trak',
				box(
					'tkhd',
					u32(3, 0, 0, 1, 0, milliseconds),
					zeros(16),
					IDENTITY,
					u32(width * 0x10000, height * 0x10000),
				), // flags: enabled, in movie
				box(
					'mdia',
					box('mdhd', u32(0, 0, 0, FPS, frames), u16(0x55c4, 0)), // timescale: one tick a frame; language "und"
					box('hdlr', u32(0, 0), 'vide', zeros(12), 'Video\0'),
					box(
						'minf',
						box('vmhd', u32(1), zeros(8)),
						box('dinf', box('dref', u32(0, 1), box('url ', u32(1)))), // the media are in this file
						box(
							'stbl',
							box(
								'stsd',
								u32(0, 1),
								box(
									'avc1',
									zeros(6),
									u16(1),
									zeros(16),
									u16(width, height),
									u32(0x480000, 0x480000, 0),
									u16(1),
									zeros(32),
									u16(0x18, 0xffff),
									avcC,
								),
							),
							box('stts', u32(0, 1, frames, 1)), // every frame lasts one tick
							box('stss', u32(0, 1, 1)),
							box('stsc', u32(0, 1, 1, frames, 1)),
							box('stsz', u32(0, 0, frames, ...samples.map((sample) => sample.length))),
							box('stco', u32(0, 1, mediaOffset)),
						),
					),
				),
			),
		);
	const ftyp = box('ftyp', 'isom', u32(0x200), 'isomiso2avc1mp41');
	const mediaOffset = ftyp.length + moov(0).length + 8;
	return Buffer.concat([ftyp, moov(mediaOffset), box('mdat', ...samples)]);
}

/**
 * The header of a `free` box of `bytes` bytes in all (with a 64-bit size, so any size fits): what
 * follows it up to that size is ignored by players, so a video padded with it still plays.
 */
export function freeBox(bytes: number): Buffer {
	const header = Buffer.concat([u32(1), Buffer.from('free', 'latin1'), Buffer.alloc(8)]);
	header.writeBigUInt64BE(BigInt(bytes), 8);
	return header;
}

const VIDEO_SIZES: Record<(typeof VIDEO_ASPECT_RATIOS)[number], [number, number]> = {
	'16:9': [320, 180],
	'9:16': [180, 320],
	'1:1': [240, 240],
};

/**
 * A video of `seconds` at 10 frames a second, in the job's colour: the elapsed seconds counting
 * in the middle and a bar filling along the bottom, so a person sees it play and where it is.
 */
export function demoVideo(
	colour: Rgb,
	seconds: number,
	aspectRatio: (typeof VIDEO_ASPECT_RATIOS)[number],
): Buffer {
	const [width, height] = VIDEO_SIZES[aspectRatio];
	return once(`video ${colour.join()} ${seconds} ${aspectRatio}`, () => {
		const frames = seconds * FPS;
		let shown = '';
		const samples = encodeH264(width, height, frames, (canvas, frame) => {
			const [second, bar] = [Math.floor(frame / FPS), Math.round((width * (frame + 1)) / frames)];
			if (`${second} ${bar}` === shown) return false;
			shown = `${second} ${bar}`;
			canvas.fill(0, 0, canvas.width, canvas.height, colour);
			canvas.digits(String(second), width / 2, height / 2 - 10, 10, WHITE);
			canvas.fill(0, height - 14, bar, 6, WHITE);
			return true;
		});
		return mp4(width, height, samples);
	});
}
