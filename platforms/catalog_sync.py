"""Rewrite the committed catalog XML: ``python -m collsim.platforms.catalog_sync``."""

from .catalog import CATALOG, catalog_platform, catalog_xml_path
from .simgrid import write_platform

if __name__ == "__main__":
    for name in CATALOG:
        write_platform(catalog_platform(name), catalog_xml_path(name))
        print(catalog_xml_path(name))
