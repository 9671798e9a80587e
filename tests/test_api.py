"""The Python API (issue 18): ``import collsim`` runs, studies, checks and loads."""

import pytest

import collsim
from collsim.errors import CollsimError

XBAR = {"xbar": {"platform": {"generator": "crossbar", "nodes": 4},
                 "price": {"per_node": 100.0}}}
ALLREDUCE = {"collective": "allreduce", "weight": 1.0, "sizes": ["8", "1KiB"],
             "algorithms": ["ring", "recursive_doubling"]}


def test_run_returns_the_rows_of_collsim_run_with_units(capsys):
    df = collsim.run("allreduce", "ring", 4, ["8", "1KiB"])
    assert list(df["bytes"]) == [8, 1024]
    assert df["model_agrees"].all() and (df["model_class"] == "exact").all()
    assert df.attrs["units"]["time_s"] == "s" and df.attrs["units"]["bytes"] == "B"
    assert df.attrs["platform"] == "crossbar" and df.attrs["profile"] == "hockney"
    assert (df["check"] == "ok").all()


def test_run_takes_catalog_machines_and_algorithm_parameters():
    df = collsim.run("reduce", "hierarchical", 8, 1024, platform="seed003_hydra", group_count=2,
                     timing_only=True)
    assert df.attrs["profile"] == "seed003_openmpi_opa"  # the machine's own profile
    assert df.loc[0, "params"]["group_count"] == 2 and df.loc[0, "check"] == "skipped"


@pytest.mark.parametrize("call, message", [
    (lambda: collsim.run("allreduce", "ring", 4, 8, colour="red"), "unknown option 'colour'"),
    (lambda: collsim.run("allreduce", "ring", 4, 8, platform=42), "platform: give a graph"),
    (lambda: collsim.run("allreduce", "ring", 4, "8 parsecs"), "8 parsecs"),
    (lambda: collsim.load("/nonexistent/x.db"), "x.db"),
])
def test_bad_input_is_one_collsim_error(call, message):
    with pytest.raises(CollsimError, match=message):
        call()


def test_study_then_load(tmp_path, write_scenario):
    scenario = write_scenario(tmp_path / "api.toml", "api", [4], XBAR, [ALLREDUCE])
    df = collsim.study(scenario, jobs=1)
    assert len(df) == 4 and set(df["algorithm"]) == {"ring", "recursive_doubling"}
    assert df.attrs["studies"][0]["name"] == "api"
    assert df.attrs["studies"][0]["machines"][0]["name"] == "xbar"
    again = collsim.load(tmp_path / "api.db")
    assert again.equals(df)
    with pytest.raises(CollsimError, match="no study 'other'"):
        collsim.load(tmp_path / "api.db", "other")


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="no attribute 'simulate'"):
        collsim.simulate  # noqa: B018


def test_the_functions_survive_the_commands_modules_being_imported():
    """Importing a submodule sets an attribute of the package: none may shadow the API."""
    import collsim.checks  # noqa: F401
    import collsim.cli  # noqa: F401
    import collsim.studies  # noqa: F401

    for name in collsim.__all__:
        assert callable(getattr(collsim, name)) and not isinstance(getattr(collsim, name), type(collsim))
