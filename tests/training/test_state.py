"""A checkpoint's files and back: exact for this trainer's, refused with the reason for anything else."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from tabular_trainer.config import Config
from tabular_trainer.run import Run

CONFIG = Config(steps=50, hidden=8, batch_size=16)


def test_a_state_read_back_writes_the_same_files_and_trains_on_identically():
    run = Run.prepare(CONFIG)
    state = run.fresh()
    run.train(state, None, say=lambda _: None)
    files = state.to_files()
    again = run.resumed(files, 50)
    assert again.to_files() == files
    longer = Run.prepare(replace(CONFIG, steps=80))
    longer.train(state, None, say=lambda _: None)
    longer.train(again, None, say=lambda _: None)
    assert again.to_files() == state.to_files()


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ([], "state.json is not this trainer's"),
        ({"step": 50}, "state.json is not this trainer's"),
        ({"step": 40, "settings": {}, "orderRng": {}, "order": None}, "state.json says step 40, its folder says step 50"),
        ({"step": 50, "settings": CONFIG.path_defining(), "orderRng": {"bit_generator": "MT19937"}, "order": None},
         "state.json holds no usable data order"),
    ],
)
def test_a_state_json_that_is_not_this_trainers_is_refused_with_the_reason(record, reason):
    run = Run.prepare(CONFIG)
    files = run.fresh().to_files()
    files["state.json"] = json.dumps(record).encode()
    with pytest.raises(ValueError, match=reason):
        run.resumed(files, 50)


def test_a_checkpoint_without_its_weights_is_refused_naming_the_file():
    run = Run.prepare(CONFIG)
    files = run.fresh().to_files()
    del files["model.npz"]
    with pytest.raises(ValueError, match="the checkpoint has no model.npz"):
        run.resumed(files, 0)


def test_a_checkpoint_mid_epoch_without_its_data_order_is_refused():
    run = Run.prepare(CONFIG)
    state = run.fresh()
    run.train(state, None, say=lambda _: None)
    files = state.to_files()
    record = json.loads(files["state.json"])
    files["state.json"] = json.dumps({**record, "order": record["order"][:-1]}).encode()
    with pytest.raises(ValueError, match="its data order is not a permutation of the 1438 training examples"):
        run.resumed(files, 50)
