// The committed guest images (kernel, initrd, modules) for each ISA, embedded
// as bytes by the package's gen step (scripts/embed-images.mjs), so a machine
// can boot the default guest in Node or a browser without file access.
import { IMAGES_BASE64 } from '../generated/images.js';
import type { Isa } from '../isa.js';

export interface GuestImages {
  readonly kernel: Uint8Array;
  readonly initrd: Uint8Array;
  /** Loadable modules by name (file name without `.ko`). */
  readonly modules: Readonly<Record<string, Uint8Array>>;
}

function decodeBase64(text: string): Uint8Array {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

const cache = new Map<string, GuestImages>();

/** Which build of the guest: ARM's comes as A32 code and, with `thumb`, as Thumb-2 (T32) code. */
export interface ImageChoice {
  readonly thumb?: boolean;
}

/** The name of an image set: the ISA, or `arm-thumb` for the Thumb-2 build of the ARM guest. */
export function imageSetName(isa: Isa, choice: ImageChoice = {}): string {
  return choice.thumb ? `${isa}-thumb` : isa;
}

/** The committed images for `isa` (fresh copies are not made: treat them as read-only). */
export function defaultImages(isa: Isa, choice: ImageChoice = {}): GuestImages {
  const name = imageSetName(isa, choice);
  let images = cache.get(name);
  if (!images) {
    if (choice.thumb && isa !== 'arm') throw new Error(`the guest is built as Thumb-2 code only for arm, not ${isa}`);
    const b = IMAGES_BASE64[name];
    if (!b) throw new Error(`no committed guest images for ${name}`);
    const modules: Record<string, Uint8Array> = {};
    for (const [name, text] of Object.entries(b.modules)) modules[name] = decodeBase64(text);
    images = { kernel: decodeBase64(b.kernel), initrd: decodeBase64(b.initrd), modules };
    cache.set(name, images);
  }
  return images;
}
