// The result of patching one SDT call site, whatever the ISA.

/** What patching one SDT site did: the site's instruction address, the bytes written and those replaced. */
export interface PatchedSdtSite {
  readonly address: bigint;
  readonly patch: Uint8Array;
  readonly original: Uint8Array;
  readonly tailCall: boolean;
}
