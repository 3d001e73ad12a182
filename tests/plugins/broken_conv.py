"""Test-only Rope / convolution / Pad backends: a small correct CPU backend in numpy (f32
accumulation for halves) and variants with one realistic bug each, as an outside kernel author
would write it. Loadable as a ``--plugin`` file.

- ``RopeInterleavedPairs``: pairs (2m, 2m + 1) where the contract pairs (i, i + d/2);
- ``RopeSinOnTheWrongHalf``: rotate_half as cat(x2, -x1): the minus sign on the wrong half;
- ``CausalConvPadsRight``: takes the caller's zeros for right padding, drops the tail and pads
  the left itself: the output shifted by kernel - 1;
- ``Conv2dPaddingSidesSwapped``: reads padding as [bottom, top, right, left];
- ``ConvTransposeUnflipped``: scatters each tap to the mirrored position (the weight not flipped);
- ``ConvTransposeOutputPaddingTop``: puts the output padding at the top and left;
- ``PadReflectRepeatsEdge``: Reflect that repeats the edge element (numpy's "symmetric");
- ``PadZeroFillFastPath``: a fill equal to zero takes a memset path, so -0.0 fills +0.0.
"""

from __future__ import annotations

import numpy as np

import judge

KINDS = ("Rope", "Conv2D", "ConvTranspose2D", "CausalConv1d", "Pad", "PadBackward")
NUMPY_MODES = {0: "constant", 1: "reflect", 2: "edge"}


def _acc(x: np.ndarray):
    return np.float32 if x.dtype.itemsize == 2 else x.dtype


class MiniConvCpu(judge.Backend):
    """Correct Rope, Conv2D, ConvTranspose2D, CausalConv1d, Pad and PadBackward."""

    name = "mini-conv-cpu"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"{self.name} has no {contract.op_kind}"

    def run(self, contract, call):
        xs = [t.view() for t in call.inputs]
        out = call.outputs[0]
        p = dict(call.params)
        with np.errstate(all="ignore"):
            r = getattr(self, contract.op_kind.lower())(xs, p, out)
            return [np.asarray(r).astype(out.base.dtype).reshape(out.shape)]

    # --- rope ---------------------------------------------------------------------------------

    def rotate(self, x, interleaved: bool):
        d = x.shape[-1]
        if interleaved:
            return np.stack((-x[..., 1::2], x[..., 0::2]), axis=-1).reshape(x.shape)
        return np.concatenate((-x[..., d // 2:], x[..., : d // 2]), axis=-1)

    def rope(self, xs, p, out):
        x, c, s = (a.astype(_acc(xs[0])) for a in xs)
        return x * c + self.rotate(x, bool(p.get("interleaved", 0))) * s

    # --- convolutions -------------------------------------------------------------------------

    def pads(self, p):
        top, bottom, left, right = p["padding"]
        return (top, bottom), (left, right)

    def conv2d(self, xs, p, out):
        x, w = (a.astype(_acc(xs[0])) for a in xs[:2])
        (sh, sw), (dh, dw), g = p["stride"], p["dilation"], p["groups"]
        ph, pw = self.pads(p)
        x = np.pad(x, ((0, 0), (0, 0), ph, pw))
        n, cin = x.shape[:2]
        ho, wo = out.shape[2:]
        wg = w.reshape(g, w.shape[0] // g, *w.shape[1:])
        acc = np.zeros((n, g, wg.shape[1], ho, wo), x.dtype)
        for kh in range(w.shape[2]):
            for kw in range(w.shape[3]):
                win = x[:, :, kh * dh: kh * dh + sh * (ho - 1) + 1: sh, kw * dw: kw * dw + sw * (wo - 1) + 1: sw]
                acc += np.einsum("ngchw,goc->ngohw", win.reshape(n, g, cin // g, ho, wo), wg[..., kh, kw])
        return self.biased(acc.reshape(out.shape), xs)

    def biased(self, r, xs):
        return r + xs[2].astype(r.dtype).reshape(1, -1, 1, 1) if len(xs) > 2 else r

    def tap(self, kh, kw, w):
        """Where tap (kh, kw) lands, as (row tap, column tap)."""
        return kh, kw

    def convtranspose2d(self, xs, p, out):
        x, w = (a.astype(_acc(xs[0])) for a in xs[:2])
        (sh, sw), (dh, dw), g = p["stride"], p["dilation"], p["groups"]
        (top, _), (left, _) = self.pads(p)
        n, cin, h, wd = x.shape
        kh_n, kw_n = w.shape[2:]
        ho, wo = out.shape[2:]
        fh = max((h - 1) * sh + dh * (kh_n - 1) + 1, top + ho)
        fw = max((wd - 1) * sw + dw * (kw_n - 1) + 1, left + wo)
        full = np.zeros((n, g, w.shape[1], fh, fw), x.dtype)
        xg, wg = x.reshape(n, g, cin // g, h, wd), w.reshape(g, cin // g, w.shape[1], kh_n, kw_n)
        for kh in range(kh_n):
            for kw in range(kw_n):
                rh, rw = self.tap(kh, kw, w)
                full[..., rh * dh: rh * dh + sh * (h - 1) + 1: sh, rw * dw: rw * dw + sw * (wd - 1) + 1: sw] += \
                    np.einsum("ngchw,gco->ngohw", xg, wg[..., kh, kw])
        return self.biased(self.crop(full.reshape(n, g * w.shape[1], fh, fw), top, left, ho, wo, p), xs)

    def crop(self, full, top, left, ho, wo, p):
        return full[:, :, top: top + ho, left: left + wo]

    def causalconv1d(self, xs, p, out):
        x, w, b = (a.astype(_acc(xs[0])) for a in xs)
        k, seq = p["kernel"], p["seq_out"]
        x = self.window_input(x, k, seq)
        r = sum((w[:, j].reshape(1, -1, 1) * x[:, :, j: j + seq] for j in range(k)),
                np.zeros(out.shape, x.dtype)) + b.reshape(1, -1, 1)
        if p["use_silu"]:  # v·sigmoid(v), exp never overflowing; silu(-inf) is its limit, -0
            e = np.exp(-np.abs(r))
            r = np.where(r == -np.inf, -0.0, r * np.where(r >= 0, 1 / (1 + e), e / (1 + e)))
        return r

    def window_input(self, x, k, seq):
        return x  # the caller's kernel - 1 zeros are already on the left

    # --- pad ----------------------------------------------------------------------------------

    def fill(self, x, p):
        return np.frombuffer(bytes(p["fill_bytes"]), dtype=x.dtype).reshape(())

    def pad(self, xs, p, out):
        (x,) = xs
        pads = [tuple(a) for a in p["padding"]] or 0
        mode = NUMPY_MODES[p["mode_tag"]]
        if mode != "constant":
            return np.pad(x, pads, mode=self.reflect_mode(mode))
        return np.pad(x, pads, mode="constant", constant_values=self.fill(x, p))

    def reflect_mode(self, mode: str) -> str:
        return mode

    def padbackward(self, xs, p, out):
        (g,) = xs
        grad = np.zeros(out.shape, _acc(g))
        index = np.arange(grad.size).reshape(out.shape)
        mode = NUMPY_MODES[p["mode_tag"]]
        pads = [tuple(a) for a in p["padding"]] or 0
        source = (np.pad(index, pads, mode="constant", constant_values=-1) if mode == "constant"
                  else np.pad(index, pads, mode=mode)).reshape(-1)
        keep = source >= 0
        np.add.at(grad.reshape(-1), source[keep], g.reshape(-1)[keep].astype(grad.dtype))
        return grad


class RopeInterleavedPairs(MiniConvCpu):
    name = "broken-rope-interleaved-pairs"

    def rotate(self, x, interleaved: bool):
        return super().rotate(x, True)  # GPT-J pairs, whatever the contract says


class RopeSinOnTheWrongHalf(MiniConvCpu):
    name = "broken-rope-sin-sign"

    def rotate(self, x, interleaved: bool):
        d = x.shape[-1]
        return np.concatenate((x[..., d // 2:], -x[..., : d // 2]), axis=-1)


class CausalConvPadsRight(MiniConvCpu):
    name = "broken-causal-conv-pads-right"

    def window_input(self, x, k, seq):
        # the author took the caller's zeros for right padding: drop them, pad the left here
        return np.pad(x[:, :, :seq], ((0, 0), (0, 0), (k - 1, 0)))


class Conv2dPaddingSidesSwapped(MiniConvCpu):
    name = "broken-conv2d-padding-sides"

    def pads(self, p):
        top, bottom, left, right = p["padding"]
        return (bottom, top), (right, left)  # read as [after, before] pairs


class ConvTransposeUnflipped(MiniConvCpu):
    name = "broken-conv-transpose-unflipped"

    def tap(self, kh, kw, w):
        return w.shape[2] - 1 - kh, w.shape[3] - 1 - kw


class ConvTransposeOutputPaddingTop(MiniConvCpu):
    name = "broken-conv-transpose-output-padding-top"

    def crop(self, full, top, left, ho, wo, p):
        oph, opw = p.get("output_padding", (0, 0))
        grown = np.pad(full, ((0, 0), (0, 0), (oph, 0), (opw, 0)))  # the extra rows on top
        return grown[:, :, top: top + ho, left: left + wo]


class PadReflectRepeatsEdge(MiniConvCpu):
    name = "broken-pad-reflect-edge"
    device = "cuda"  # Reflect exists on the CUDA kernel only

    def reflect_mode(self, mode: str) -> str:
        return "symmetric" if mode == "reflect" else mode


class PadZeroFillFastPath(MiniConvCpu):
    name = "broken-pad-zero-fill"

    def pad(self, xs, p, out):
        (x,) = xs
        if x.dtype.kind == "f" or x.dtype.itemsize == 2:
            if float(self.fill(x, p)) == 0.0:  # memset fast path: -0.0 == 0.0 compares equal
                r = np.zeros(out.shape, x.dtype)
                inner = tuple(slice(b, b + n) for (b, _), n in zip(p["padding"], x.shape, strict=True))
                r[inner] = x
                return r
        return super().pad(xs, p, out)


BROKEN = (RopeInterleavedPairs, RopeSinOnTheWrongHalf, CausalConvPadsRight, Conv2dPaddingSidesSwapped,
          ConvTransposeUnflipped, ConvTransposeOutputPaddingTop, PadReflectRepeatsEdge, PadZeroFillFastPath)


def backends() -> list[judge.Backend]:
    return [MiniConvCpu(), *(cls() for cls in BROKEN)]
