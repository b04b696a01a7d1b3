#!/usr/bin/python3
"""Writes secp256k1.txt: deterministic ECDSA signatures on secp256k1 made by
python-ecdsa (Debian's python3-ecdsa, 0.18.0 when they were made), for the
tests of internal/ecdsasign.

    apt-get install -y python3-ecdsa
    /usr/bin/python3 testdata/rfc6979/gen_secp256k1.py > testdata/rfc6979/secp256k1.txt

One item per line, fields separated by one space, hex in lowercase:

    HASH KEY DIGEST EXTRA K R S S_LOW K_NEXT

HASH names the hash of RFC 6979's HMAC (sha1, sha224, sha256, sha384,
sha512), the one the digest's length implies; KEY is the private key (32
bytes); DIGEST the digest signed; EXTRA the extra data of RFC 6979 §3.6
("-" for none); K the nonce (rfc6979.generate_k); R and S the signature
(SigningKey.sign_digest_deterministic, allow_truncate for digests longer
than 32 bytes); S_LOW is min(S, n - S); K_NEXT the nonce RFC 6979 draws when
K is refused (generate_k with retry_gen=1).
"""

import hashlib
import random

import ecdsa
from ecdsa import SECP256k1, SigningKey, rfc6979
from ecdsa.util import sigencode_strings

N = SECP256k1.order
HASHES = {
    "sha1": hashlib.sha1,
    "sha224": hashlib.sha224,
    "sha256": hashlib.sha256,
    "sha384": hashlib.sha384,
    "sha512": hashlib.sha512,
}


def line(name, key, digest, extra):
    h = HASHES[name]
    sk = SigningKey.from_secret_exponent(key, curve=SECP256k1, hashfunc=h)
    k = rfc6979.generate_k(N, key, h, digest, extra_entropy=extra)
    k_next = rfc6979.generate_k(N, key, h, digest, retry_gen=1, extra_entropy=extra)
    r, s = sk.sign_digest_deterministic(
        digest, hashfunc=h, sigencode=sigencode_strings, extra_entropy=extra, allow_truncate=True
    )
    s_low = min(int(s.hex(), 16), N - int(s.hex(), 16))
    fields = [
        name,
        "%064x" % key,
        digest.hex(),
        extra.hex() if extra else "-",
        "%064x" % k,
        r.hex(),
        s.hex(),
        "%064x" % s_low,
        "%064x" % k_next,
    ]
    return " ".join(fields)


def main():
    rng = random.Random(6979)
    keys = [1, 2, N - 2, N - 1] + [rng.randrange(1, N) for _ in range(36)]
    print("# python-ecdsa %s, secp256k1, made by gen_secp256k1.py" % ecdsa.__version__)
    for i, key in enumerate(keys):
        name = list(HASHES)[i % len(HASHES)]
        size = HASHES[name]().digest_size
        if i % 8 == 3:
            digest = b"\xff" * size  # above n where it counts
        elif i % 8 == 7:
            digest = bytes(size)
        else:
            digest = HASHES[name](rng.randbytes(16)).digest()
        extra = rng.randbytes(32) if i % 4 == 1 else b""
        print(line(name, key, digest, extra))


main()
