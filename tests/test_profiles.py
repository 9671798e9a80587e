import pytest

from collsim.analysis.models import NetworkParams, message_s
from collsim.platforms import crossbar, map_ranks, pair_parameters
from collsim.platforms.simgrid import write_platform
from collsim.platforms.xml_file import xml_file_platform
from collsim.profiles import HARNESS_CFG, builtin_profiles, load_profile
from collsim.harness import simulate
from collsim.runner import RunSpec, measured_pair, run


def test_builtin_profiles():
    profiles = builtin_profiles()
    assert set(profiles) >= {"hockney", "smpi"}
    hockney = profiles["hockney"]
    assert hockney.exact_models and hockney.envelope_bytes == 16
    args = hockney.smpirun_args()
    assert "--cfg=network/model:CM02" in args
    for key, value in HARNESS_CFG.items():
        assert f"--cfg={key}:{value}" in args
    assert not profiles["smpi"].exact_models


def test_user_profile(tmp_path):
    path = tmp_path / "calibrated.toml"
    path.write_text('description = "mine"\nenvelope_bytes = 0\n[cfg]\n"network/model" = "LV08"\n')
    profile = load_profile(str(path))
    assert profile.name == "calibrated" and profile.cfg == {"network/model": "LV08"}
    assert profile.envelope_bytes == 0 and not profile.exact_models


@pytest.mark.parametrize(
    "text, message",
    [
        ("colour = 1\n", "unknown key 'colour'"),
        ("envelope_bytes = -1\n", "envelope_bytes"),
        ("exact_models = 1\n", "exact_models"),
        ('[cfg]\n"smpi/wtime" = "1"\n', "may not set 'smpi/wtime'"),
        ("[cfg\n", "not valid TOML"),
        # the machine-model elements of issue 13
        ("send_overhead_s = -1\neager_threshold_bytes = 10\n", "send_overhead_s"),
        ("eager_threshold_bytes = 1.5\n", "eager_threshold_bytes"),
        ("send_overhead_s = 1e-6\n", "no eager_threshold_bytes"),
        ('eager_threshold_bytes = 10\n[cfg]\n"smpi/send-is-detached-thresh" = "5"\n', "both"),
    ],
)
def test_malformed_profiles(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_profile(str(path))


def test_missing_profile_file(tmp_path):
    with pytest.raises(ValueError, match="cannot read profile"):
        load_profile(str(tmp_path / "absent.toml"))


@pytest.mark.parametrize("text", ["0:2;65472", "a:1", "0:-1", "0:0"])
def test_malformed_factors_name_the_problem(tmp_path, text):
    path = tmp_path / "factors.toml"
    path.write_text(f'[cfg]\n"network/model" = "SMPI"\n"smpi/lat-factor" = "{text}"\n')
    with pytest.raises(ValueError, match="factors.toml: profile 'factors'"):
        load_profile(str(path))


def test_factors_apply_only_to_simgrids_smpi_model():
    profiles = builtin_profiles()
    assert profiles["hockney"].network_factors == ((), ())
    latency, bandwidth = profiles["smpi"].network_factors
    assert latency[0] == (65472, 11.6436) and bandwidth[-1] == (0, 0.812084)


# A user profile with factors of its own, so that the test shows SimGrid reads
# the same thresholds and directions as the model, not only the defaults.
OWN_FACTORS = ('[cfg]\n"network/model" = "SMPI"\n"network/crosstraffic" = "0"\n'
               '"smpi/lat-factor" = "4096:5.0;0:1.5"\n"smpi/bw-factor" = "4096:0.5;0:0.9"\n')


@pytest.mark.parametrize("profile_name", ["smpi", "own"])
def test_pingpong_under_smpi_factors_equals_the_model(tmp_path, profile_name):
    """The piecewise factors, applied to size + envelope, give SimGrid's time to 1e-9,
    on both sides of every threshold."""
    if profile_name == "own":
        path = tmp_path / "own.toml"
        path.write_text(OWN_FACTORS)
        profile = load_profile(str(path))
    else:
        profile = builtin_profiles()["smpi"]
    G = crossbar(nodes=2, bandwidth_Bps=12.5e9, latency_s=1.3e-6)
    latency, bandwidth = profile.network_factors
    sizes = sorted({max(0, threshold - profile.envelope_bytes + delta)
                    for threshold, _ in latency + bandwidth for delta in (-1, 0)} | {1 << 20})
    rows, status = simulate(G, map_ranks(G, 2), profile,
                            ["--pingpong", "--bytes", ",".join(map(str, sizes)), "--peer", "1"],
                            what="ping-pong")
    assert status == 0
    pair = pair_parameters(G, *map_ranks(G, 2))
    net = NetworkParams(alpha_s=pair.alpha_s, beta_s_per_byte=pair.beta_s_per_byte,
                        latency_factors=latency, bandwidth_factors=bandwidth)
    for row in rows:
        assert row["time_s"] == pytest.approx(message_s(net, row["bytes"]), rel=1e-9), row["bytes"]


def test_models_under_smpi_without_cross_traffic_are_the_simulation(tmp_path):
    """Seed 001's 3.1x 'discrepancy' of the ring under SimGrid's defaults was the latency
    factor of messages >= 65472 bytes; with the factors in the model, what is left is
    SimGrid's cross-traffic (the ACKs of each flow on the reverse link): 0 without it, a
    few percent with it."""
    path = tmp_path / "smpi_no_cross.toml"
    path.write_text('[cfg]\n"network/model" = "SMPI"\n"network/crosstraffic" = "0"\n')
    for profile, tolerance in [(load_profile(str(path)), 1e-9), (builtin_profiles()["smpi"], 0.03)]:
        G = crossbar(nodes=16)
        spec = RunSpec(collective="allreduce", algorithm="ring", np=16, sizes_bytes=(8, 1 << 20))
        rows, status = run(spec, G, profile, platform="crossbar")
        assert status == 0
        for row in rows:
            assert row["ratio"] == pytest.approx(1.0, abs=tolerance), (profile.name, row["bytes"])


def test_alpha_and_beta_of_an_xml_platform_are_recovered_under_smpi(tmp_path):
    """On an XML platform collsim measures alpha and beta with two ping-pongs; under the
    SMPI model it takes the factors out again."""
    G = crossbar(nodes=2, bandwidth_Bps=12.5e9, latency_s=1.3e-6)
    path = write_platform(G, tmp_path / "two.xml")
    opaque = xml_file_platform(path)
    pair = measured_pair(opaque, *map_ranks(opaque, 2), builtin_profiles()["smpi"])
    assert pair.alpha_s == pytest.approx(2 * 1.3e-6, rel=1e-6)  # two links on the route
    assert pair.beta_s_per_byte == pytest.approx(1 / 12.5e9, rel=1e-6)
