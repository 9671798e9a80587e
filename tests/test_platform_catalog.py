"""The catalog: committed XML equals the generators' output; SimGrid agrees with each entry."""

import pytest

from collsim.platforms import pair_classes, pair_parameters, platform_xml
from collsim.platforms.catalog import CATALOG, catalog_platform, catalog_xml_path
from collsim.harness import simulate


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_committed_xml_is_in_sync(name):
    """Regenerate with: python -m collsim.platforms.catalog_sync (see its docstring)."""
    assert catalog_xml_path(name).read_bytes() == platform_xml(catalog_platform(name))


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_parameter_has_a_source(name):
    entry = CATALOG[name]
    assert entry["description"] and entry["sources"]
    assert all(isinstance(text, str) and len(text) > 10 for text in entry["sources"].values())


def test_seed_machines_have_their_published_shape():
    def cores(G):
        return sum(G.nodes[h]["cores"] for h, k in G.nodes(data="kind") if k == "host")

    assert cores(catalog_platform("seed000_qdr320")) == 320 * 8
    assert cores(catalog_platform("seed003_hydra")) == 1152
    assert cores(catalog_platform("seed004_graphene")) == 144 * 4
    assert cores(catalog_platform("seed002_orfeo_epyc")) == 2 * 128


def test_unknown_name():
    with pytest.raises(ValueError, match="unknown catalog platform 'nope'"):
        catalog_platform("nope")


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_pingpong_per_class_on_the_committed_xml(hockney, name):
    """One pair per (alpha, beta) class from the first host, simulated on the entry's XML
    (byte-identical to the committed file, see test_committed_xml_is_in_sync)."""
    G = catalog_platform(name)
    first = min((h for h, k in G.nodes(data="kind") if k == "host"),
                key=lambda h: (G.nodes[h]["node"], G.nodes[h]["socket"]))
    sizes = [0, 1024, 1 << 20]
    for (alpha_s, beta_s_per_byte), (source, target, _) in pair_classes(G, sources=[first]).items():
        rows, status = simulate(G, [source, target], hockney,
                                ["--pingpong", "--bytes", ",".join(map(str, sizes)), "--peer", "1"],
                                what="ping-pong")
        assert status == 0
        for row in rows:
            predicted = alpha_s + (row["bytes"] + hockney.envelope_bytes) * beta_s_per_byte
            assert row["time_s"] == pytest.approx(predicted, rel=1e-6), (source, target)
    assert pair_parameters(G, first, first).hops == 0
