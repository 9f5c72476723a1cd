"""A card's picture weighed against its kit face with the print's saturation fitted
(``code_cards.PRINT_CHROMA``, ``appearance.agreement(chroma=...)``; issue 26): faded or pale
ink, a sleeve's haze and a camera's muted colours show a face at a fraction of its kit
colours, and a reading by codes that rests on the picture's agreement missed such cards."""

from __future__ import annotations

import numpy as np
import pytest

from pictable.bench.readers.identify import PLACE_MAX, placement_error
from vision.identify import appearance, code_cards, kernels_compiled, kernels_plain
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed
from vision.synth.card_looks import card_look

_CHROMA = code_cards.PRINT_CHROMA


def _faded(cells: np.ndarray, chroma: float, gain: float = 0.8, lift: float = 12.0) -> np.ndarray:
    """Kit cells (gh, gw, 3) Lab as a faded print shows them: lightness scaled towards the
    paper, the colours about their mean scaled by ``chroma``."""
    out = cells.astype(np.float32).copy()
    out[..., 0] = gain * out[..., 0] + lift
    for axis in (1, 2):
        mean = out[..., axis].mean()
        out[..., axis] = mean + chroma * (out[..., axis] - mean)
    return out


def _face(card: str) -> np.ndarray:
    return code_cards.kit_face_cells(card, "front")


def test_a_faded_print_agrees_once_its_saturation_is_fitted() -> None:
    face = _face("pickpic-012")
    seen = _faded(face, 0.5)[None]
    before = appearance.agreement(seen, face[None])
    after = appearance.agreement(seen, face[None], chroma=_CHROMA)
    assert after[0] >= 0.95
    assert before[0] < after[0] - 0.2


def test_another_face_gains_little() -> None:
    seen = _faded(_face("pickpic-012"), 0.5)
    others = np.stack([_face(f"pickpic-{k:03d}") for k in range(20, 120, 5)])
    stack = np.repeat(seen[None], len(others), axis=0)
    before = appearance.agreement(stack, others)
    after = appearance.agreement(stack, others, chroma=_CHROMA)
    # Another face's colours fit a gain near 0, out of the range: mostly none is taken.
    assert np.median(after - before) <= 0.05
    assert float(after.max()) < 0.6


def test_a_grey_picture_fits_no_gain() -> None:
    """A grey picture (no colour at all) fits a gain near 0 with any coloured face: out of the
    range, so its agreement is the one with colours fitted by an offset alone (a grey
    portrait in a phone photo of a business card once came near a Pic Flip face's)."""
    face = _face("pickpic-033")
    grey = _faded(face, 0.0)[None]
    before = appearance.agreement(grey, face[None])
    after = appearance.agreement(grey, face[None], chroma=_CHROMA)
    assert after[0] == pytest.approx(before[0])


def test_no_range_is_the_agreement_as_it_was() -> None:
    rng = np.random.default_rng(3)
    ref = (rng.random((12, 40, 3)) * 60).astype(np.float32)
    obs = (ref * rng.uniform(0.4, 1.2, (12, 1, 3)) + rng.normal(0, 4, ref.shape)).astype(np.float32)
    inside = rng.random((12, 40)) > 0.1
    for forms in (kernels_compiled, kernels_plain):
        plain = forms.cell_agreement(obs, ref, inside, appearance.AGREE_LAB)
        same = forms.cell_agreement(obs, ref, inside, appearance.AGREE_LAB, 1.0, 1.0)
        assert np.array_equal(plain, same)


def test_both_forms_fit_the_same_gain() -> None:
    rng = np.random.default_rng(4)
    ref = (rng.random((30, 50, 3)) * 60 - 20).astype(np.float32)
    obs = ref.copy()
    obs[..., 1:] *= rng.uniform(0.2, 1.7, (30, 1, 1)).astype(np.float32)
    obs += rng.normal(0, 3, obs.shape).astype(np.float32)
    inside = rng.random((30, 50)) > 0.1
    compiled = kernels_compiled.cell_agreement(obs, ref, inside, 10.0, *_CHROMA)
    plain = kernels_plain.cell_agreement(obs, ref, inside, 10.0, *_CHROMA)
    assert np.allclose(compiled, plain, atol=1e-9)


def test_a_pale_ink_card_is_named_with_its_saturation_fitted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Wide development looks, hard tier, seed 2, scene 24: pale ink on recycled stock, on a
    grey table under warm light. pickpic-035 (36 px wide, in full view) shows its colours at
    a third of its kit's; with them fitted it is named, and placed on its card; with colours
    fitted by an offset alone, its picture does not back its markers and it is not."""
    assert card_look(scene_seed(2, 24), "wide").names()["ink"] == "pale"
    frame, truth = make_scene("codes", "hard", scene_seed(2, 24), "wide")
    card = next(t for t in truth.cards if t.card_id == "pickpic-035")
    read = identify_frame(frame, None, codes="fast", game="pickpic")
    truth_ids = {(t.card_id, t.face) for t in truth.cards}
    assert {(r.card, r.side) for r in read.cards} <= truth_ids
    reading = read.card("pickpic-035")
    assert reading is not None
    assert placement_error(reading.corners_px, card.corners_px) <= PLACE_MAX
    monkeypatch.setattr(code_cards, "PRINT_CHROMA", (1.0, 1.0))
    without = identify_frame(frame, None, codes="fast", game="pickpic")
    assert without.card("pickpic-035") is None
