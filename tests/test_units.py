import pytest

from collsim.units import (
    format_bytes,
    parse_bandwidth,
    parse_byte_list,
    parse_bytes,
    parse_time,
)


@pytest.mark.parametrize(
    "text, expected",
    [("0", 0), ("8", 8), ("8B", 8), ("4KiB", 4096), ("1MiB", 1048576), ("2GiB", 2**31),
     ("1kB", 1000), ("1.5KiB", 1536)],
)
def test_sizes(text, expected):
    assert parse_bytes(text) == expected


@pytest.mark.parametrize("text", ["", "-8", "8XB", "1.5B", "KiB", "8 bytes", "1e400"])
def test_malformed_sizes_are_rejected(text):
    with pytest.raises(ValueError):
        parse_bytes(text)


def test_size_lists():
    assert parse_byte_list("8,64KiB,1MiB") == [8, 65536, 1048576]
    for bad in ("", "8,,16", "8,"):
        with pytest.raises(ValueError):
            parse_byte_list(bad)


def test_bandwidth_and_time():
    assert parse_bandwidth("12.5GBps") == 12.5e9
    assert parse_bandwidth("100Gbps") == 12.5e9
    assert parse_time("1us") == 1e-6
    assert parse_time(2e-6) == 2e-6
    for bad in ("0GBps", "fast", "-1GBps"):
        with pytest.raises(ValueError):
            parse_bandwidth(bad)
    for bad in ("-1us", "1 fortnight"):
        with pytest.raises(ValueError):
            parse_time(bad)


def test_format_bytes_round_trips():
    for n in (0, 8, 1000, 4096, 65536, 1048576, 3 * 1048576):
        assert parse_bytes(format_bytes(n)) == n
