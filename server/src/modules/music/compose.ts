/**
 * The offline demo composer: a short, deterministic, listenable piece from a seed — a pentatonic
 * melody over a four-chord progression with a bass line and soft pad, shaped by simple envelopes —
 * rendered as 22.05 kHz mono 16-bit PCM WAV. The same seed always gives the same bytes.
 */
export const SAMPLE_RATE = 22_050

/** mulberry32: small, fast, deterministic. */
export function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** FNV-1a of a string, for seeds that depend only on the prompt. */
export function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const midiHz = (note: number) => 440 * 2 ** ((note - 69) / 12)

/** Major pentatonic degrees (semitones above the key) over two octaves. */
const PENTATONIC = [0, 2, 4, 7, 9, 12, 14, 16, 19, 21, 24]
/** Chord roots (semitones) and qualities of a few progressions in a major key. */
const PROGRESSIONS: [number, 'maj' | 'min'][][] = [
  [
    [0, 'maj'],
    [7, 'maj'],
    [9, 'min'],
    [5, 'maj']
  ], // I V vi IV
  [
    [0, 'maj'],
    [9, 'min'],
    [5, 'maj'],
    [7, 'maj']
  ], // I vi IV V
  [
    [5, 'maj'],
    [7, 'maj'],
    [4, 'min'],
    [9, 'min']
  ], // IV V iii vi
  [
    [0, 'maj'],
    [5, 'maj'],
    [9, 'min'],
    [7, 'maj']
  ] // I IV vi V
]

export interface Composition {
  seed: number
  /** Beats per minute. */
  tempo: number
  /** MIDI note of the key's tonic. */
  key: number
  bars: number
  durationSeconds: number
}

/** The plan of a piece: tempo, key and length from the seed, about 20–30 seconds. */
export function plan(seed: number): Composition {
  const rnd = random(seed)
  const tempo = 84 + Math.floor(rnd() * 8) * 5 // 84–119 BPM
  const key = 57 + Math.floor(rnd() * 8) // A3 … E4
  const barSeconds = (4 * 60) / tempo
  const bars = Math.max(8, Math.min(12, Math.round(25 / barSeconds)))
  return { seed, tempo, key, bars, durationSeconds: bars * barSeconds + 1.5 }
}

/** Adds a note to the buffer: a few harmonics under an attack/decay/release envelope. */
function addNote(
  out: Float32Array,
  start: number,
  length: number,
  hz: number,
  gain: number,
  shape: { attack: number; release: number; harmonics: number[]; decay: number }
) {
  const from = Math.max(0, Math.floor(start * SAMPLE_RATE))
  const total = Math.floor((length + shape.release) * SAMPLE_RATE)
  const held = Math.floor(length * SAMPLE_RATE)
  const attack = Math.max(1, Math.floor(shape.attack * SAMPLE_RATE))
  const release = Math.max(1, Math.floor(shape.release * SAMPLE_RATE))
  const w = (2 * Math.PI * hz) / SAMPLE_RATE
  for (let i = 0; i < total && from + i < out.length; i++) {
    let env = i < attack ? i / attack : Math.exp((-shape.decay * (i - attack)) / SAMPLE_RATE)
    if (i > held) env *= Math.max(0, 1 - (i - held) / release)
    let v = 0
    for (let h = 0; h < shape.harmonics.length; h++) v += shape.harmonics[h]! * Math.sin(w * (h + 1) * i)
    out[from + i]! += gain * env * v
  }
}

/** The samples of a piece, in [-1, 1]. */
export function renderSamples(seed: number): { samples: Float32Array; composition: Composition } {
  const composition = plan(seed)
  const rnd = random(seed ^ 0x9e3779b9)
  const { tempo, key, bars } = composition
  const beat = 60 / tempo
  const out = new Float32Array(Math.ceil(composition.durationSeconds * SAMPLE_RATE))
  const progression = PROGRESSIONS[Math.floor(rnd() * PROGRESSIONS.length)]!
  const lead = { attack: 0.01, release: 0.12, harmonics: [1, 0.35, 0.12], decay: 2.2 }
  const pad = { attack: 0.25, release: 0.6, harmonics: [1, 0.15], decay: 0.25 }
  const bass = { attack: 0.01, release: 0.08, harmonics: [1, 0.5, 0.25], decay: 1.5 }

  // A two-bar motif, repeated with variations, so the tune is recognisable.
  const motif: { at: number; len: number; degree: number }[] = []
  let degree = 2 + Math.floor(rnd() * 3)
  for (let t = 0; t < 8; ) {
    const len = rnd() < 0.3 ? 1 : rnd() < 0.8 ? 0.5 : 1.5
    if (rnd() > 0.12) motif.push({ at: t, len: Math.min(len, 8 - t), degree })
    degree = Math.max(0, Math.min(PENTATONIC.length - 1, degree + Math.floor(rnd() * 5) - 2))
    t += len
  }

  for (let bar = 0; bar < bars; bar++) {
    const [root, quality] = progression[bar % progression.length]!
    const barStart = bar * 4 * beat
    // Pad: the chord, held for the bar.
    const third = quality === 'maj' ? 4 : 3
    for (const interval of [0, third, 7]) addNote(out, barStart, 4 * beat, midiHz(key + root + interval - 12), 0.05, pad)
    // Bass: root on beats 1 and 3, fifth on 4.
    addNote(out, barStart, beat * 1.5, midiHz(key + root - 24), 0.16, bass)
    addNote(out, barStart + 2 * beat, beat, midiHz(key + root - 24), 0.13, bass)
    addNote(out, barStart + 3 * beat, beat * 0.8, midiHz(key + root - 17), 0.1, bass)
  }
  for (let phrase = 0; phrase * 2 < bars; phrase++) {
    const shift = phrase % 4 === 2 ? 2 : phrase % 4 === 3 ? -1 : 0
    for (const note of motif) {
      const d = Math.max(0, Math.min(PENTATONIC.length - 1, note.degree + shift))
      const start = (phrase * 8 + note.at) * beat
      if (start >= bars * 4 * beat) break
      addNote(out, start, note.len * beat * 0.9, midiHz(key + PENTATONIC[d]!), 0.2, lead)
    }
  }

  // Fade in and out, then normalise to -1 dBFS.
  const fade = Math.floor(0.05 * SAMPLE_RATE)
  const tail = Math.floor(1.2 * SAMPLE_RATE)
  let peak = 0
  for (let i = 0; i < out.length; i++) {
    if (i < fade) out[i]! *= i / fade
    if (i > out.length - tail) out[i]! *= Math.max(0, (out.length - i) / tail)
    peak = Math.max(peak, Math.abs(out[i]!))
  }
  const scale = peak > 0 ? 0.89 / peak : 1
  for (let i = 0; i < out.length; i++) out[i]! *= scale
  return { samples: out, composition }
}

/** A RIFF/WAVE file of 16-bit mono PCM. */
export function encodeWav(samples: Float32Array, sampleRate = SAMPLE_RATE): Uint8Array {
  const dataBytes = samples.length * 2
  const buffer = Buffer.alloc(44 + dataBytes)
  buffer.write('RIFF', 0, 'ascii')
  buffer.writeUInt32LE(36 + dataBytes, 4)
  buffer.write('WAVE', 8, 'ascii')
  buffer.write('fmt ', 12, 'ascii')
  buffer.writeUInt32LE(16, 16) // PCM chunk size
  buffer.writeUInt16LE(1, 20) // PCM
  buffer.writeUInt16LE(1, 22) // mono
  buffer.writeUInt32LE(sampleRate, 24)
  buffer.writeUInt32LE(sampleRate * 2, 28) // byte rate
  buffer.writeUInt16LE(2, 32) // block align
  buffer.writeUInt16LE(16, 34) // bits per sample
  buffer.write('data', 36, 'ascii')
  buffer.writeUInt32LE(dataBytes, 40)
  for (let i = 0; i < samples.length; i++) {
    const v = Math.max(-1, Math.min(1, samples[i]!))
    buffer.writeInt16LE(Math.round(v * 32767), 44 + i * 2)
  }
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
}

export function composeWav(seed: number): { wav: Uint8Array; composition: Composition } {
  const { samples, composition } = renderSamples(seed)
  return { wav: encodeWav(samples), composition }
}
