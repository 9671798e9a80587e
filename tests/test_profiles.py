import pytest

from collsim.profiles import HARNESS_CFG, builtin_profiles, load_profile


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
