/** The SHA-256 digest (32 bytes) of ``data``. */
export declare function sha256(data: Uint8Array): Uint8Array;
/** HMAC-SHA-256 of ``data`` under ``key`` (any length: a key over 64 bytes is hashed first). */
export declare function hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array;
/** Lower-case hex of ``bytes``. */
export declare function toHex(bytes: Uint8Array): string;
/** The bytes of an even-length hex string, or undefined when it is not one. */
export declare function fromHex(hex: string): Uint8Array | undefined;
