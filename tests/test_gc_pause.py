"""The cycle collector is paused inside the hot blocks and left as it was after."""

import gc

import pytest

from agents.gc_pause import cycle_collection_paused


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    assert gc.isenabled()
    with cycle_collection_paused():
        assert not gc.isenabled()
        with cycle_collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "an inner block must not switch it on under the outer one"
    assert gc.isenabled()


def test_an_error_in_the_block_still_switches_the_collector_on_again() -> None:
    with pytest.raises(ValueError), cycle_collection_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with cycle_collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
