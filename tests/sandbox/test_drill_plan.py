"""Where the drill preempts (sandbox/drill.py, plan()): by step, in order, both kinds, the last for good."""

from __future__ import annotations

import pytest

from sandbox.drill import GENTLE, HARD, RESTART, RESUBMIT, plan


@pytest.mark.parametrize("seed", range(20))
def test_the_preemptions_fall_in_order_in_their_shares_of_the_steps_with_training_left(seed):
    planned = plan(3, seed, 60_000)
    steps = [p.at_step for p in planned]
    assert steps == sorted(steps) and len(set(steps)) == 3
    for i, step in enumerate(steps):
        assert 60_000 * (i + 0.6) / 4 <= step <= 60_000 * (i + 1) / 4  # the i-th share; the last leaves a quarter
    assert {p.kind for p in planned} == {GENTLE, HARD}
    assert [p.then for p in planned] == [RESTART, RESTART, RESUBMIT]
    assert all(0.2 <= p.into <= 0.8 for p in planned)


def test_the_seed_fixes_the_plan_and_another_seed_changes_it():
    assert plan(3, 7, 60_000) == plan(3, 7, 60_000)
    assert any(plan(3, 7, 60_000) != plan(3, seed, 60_000) for seed in range(8, 12))


def test_one_preemption_is_a_restart():
    [only] = plan(1, 0, 10_000)
    assert only.then == RESTART and 3_000 <= only.at_step <= 5_000
