# ruff: noqa: E501  (the projects under test are written inline, one source line per string)
"""The generator on the layouts real projects use: each generated, bound, loaded, edited.

For every layout: ``fw generate``, a valid and an invalid request, the settings loaded; then a
declaration (or an alias) edited, after which fw either regenerates (``fw run``'s path, the pytest
plugin) or refuses with "run fw generate", and never binds the old rules.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .support import FW as FW_COMMAND
from .support import PRELUDE, edit, environment, fw, generate, probe, pyproject, write

pytestmark = pytest.mark.timeout(300)

VALID = {"name": "Ada Lovelace"}
INVALID = {"name": "Al"}


def _flat(root: Path) -> None:
    write(
        root,
        {
            "pyproject.toml": pyproject("shop.main:app", ["src/shop"], ["src/shop"]),
            "src/shop/__init__.py": "",
            "src/shop/main.py": PRELUDE
            + """
            @dataclass
            class Hello:
                name: Annotated[str, fw.check("required,minlen=3")]

            @dataclass
            class Shop:
                greeting: Annotated[str, fw.default("hello")]

            fw.register_config(Shop, "shop")
            app = fw.App()

            @app.route("POST /hello")
            async def hello(request: fw.Request) -> fw.Response:
                body = await fw.parse(Hello, request)
                return fw.JSONResponse({"name": body.name})
            """.replace("\n            ", "\n"),
        },
    )


class TestFlat:
    def test_a_flat_package_binds_valid_and_invalid_requests_and_loads_its_settings(
        self, tmp_path: Path
    ) -> None:
        _flat(tmp_path)
        generate(tmp_path)
        seen = probe(
            tmp_path,
            requests=[("POST", "/hello", {}, VALID), ("POST", "/hello", {}, INVALID)],
            config=["shop.main:Shop.greeting"],
        )
        assert seen.error is None, seen.output
        assert seen.statuses == [200, 400]
        assert seen.errors[1] == ["name"]
        assert seen.config == {"shop.main:Shop.greeting": "hello"}

    def test_an_edited_rule_is_refused_as_stale_until_regenerated_then_bound_in_the_same_run(
        self, tmp_path: Path
    ) -> None:
        _flat(tmp_path)
        generate(tmp_path)
        edit(tmp_path / "src/shop/main.py", "minlen=3", "minlen=20")
        stale = probe(tmp_path, requests=[("POST", "/hello", {}, VALID)], binders=["shop.main:Hello"])
        assert stale.refused_as_stale, stale.output
        assert stale.statuses == [500]
        fresh = probe(tmp_path, requests=[("POST", "/hello", {}, VALID)], regenerate=True)
        assert fresh.error is None, fresh.output
        assert fresh.statuses == [400]
        assert "regenerated src/shop/_fw_binders.py" in fresh.output

    def test_an_edit_that_changes_no_generated_file_is_regenerated_once_and_then_current(
        self, tmp_path: Path
    ) -> None:
        from fw.generate import is_stale
        from fw.generate.project import load_project

        _flat(tmp_path)
        generate(tmp_path)
        project = load_project(tmp_path)
        assert not is_stale(project)
        edit(tmp_path / "src/shop/main.py", "app = fw.App()", "app = fw.App()  # the shop")
        assert is_stale(project)
        assert probe(tmp_path, requests=[("POST", "/hello", {}, VALID)], regenerate=True).statuses == [200]
        assert not is_stale(project)

    def test_a_renamed_module_gives_run_fw_generate_not_a_traceback_from_generated_code(
        self, tmp_path: Path
    ) -> None:
        _flat(tmp_path)
        write(
            tmp_path,
            {
                "src/shop/models.py": PRELUDE
                + "\n@dataclass\nclass Order:\n    sku: Annotated[str, fw.check('required')]\n"
            },
        )
        edit(tmp_path / "src/shop/main.py", "app = fw.App()", "from shop.models import Order\napp = fw.App()")
        edit(
            tmp_path / "src/shop/main.py",
            "body = await fw.parse(Hello, request)",
            "await fw.parse(Order, request)\n    body = await fw.parse(Hello, request)",
        )
        generate(tmp_path)
        (tmp_path / "src/shop/models.py").rename(tmp_path / "src/shop/orders.py")
        edit(tmp_path / "src/shop/main.py", "from shop.models import", "from shop.orders import")
        seen = probe(tmp_path, requests=[("POST", "/hello", {}, VALID)], binders=["shop.orders:Order"])
        assert seen.error is None, seen.output
        assert seen.statuses == [500]
        assert "run `fw generate`" in seen.binders["shop.orders:Order"]


class TestSubPackages:
    @staticmethod
    def _versioned(root: Path) -> None:
        write(
            root,
            {
                "pyproject.toml": pyproject("shop.main:app", ["src/shop/api"], ["src/shop/settings"]),
                "src/shop/__init__.py": "",
                "src/shop/models.py": PRELUDE
                + "\n@dataclass\nclass Address:\n    city: Annotated[str, fw.check('required')]\n\n"
                "@dataclass\nclass Order:\n    sku: Annotated[str, fw.check('required,minlen=3')]\n    address: Address\n",
                "src/shop/api/__init__.py": "",
                "src/shop/api/v1/__init__.py": "",
                "src/shop/api/v1/hello.py": PRELUDE
                + "\n@dataclass\nclass Hello:\n    name: Annotated[str, fw.check('required,minlen=3')]\n\n"
                "async def hello(request: fw.Request) -> fw.Response:\n"
                "    return fw.JSONResponse({'v1': (await fw.parse(Hello, request)).name})\n",
                "src/shop/api/v2/__init__.py": PRELUDE + "from shop.models import Order\n\n"
                "@dataclass\nclass Hello:\n    name: Annotated[str, fw.check('required,maxlen=5')]\n\n"
                "async def hello(request: fw.Request) -> fw.Response:\n"
                "    return fw.JSONResponse({'v2': (await fw.parse(Hello, request)).name})\n\n"
                "async def order(request: fw.Request) -> fw.Response:\n"
                "    return fw.JSONResponse({'sku': (await fw.parse(Order, request)).sku})\n",
                "src/shop/settings/__init__.py": PRELUDE
                + "from shop.settings import db\n\n@dataclass\nclass Shop:\n    greeting: Annotated[str, fw.default('hi')]\n\n"
                "fw.register_config(Shop, 'shop')\n",
                "src/shop/settings/db.py": PRELUDE
                + "\n@dataclass\nclass Db:\n    pool: Annotated[int, fw.default('5')]\n\nfw.register_config(Db, 'db')\n",
                "src/shop/main.py": "import fw\nfrom shop import settings\nfrom shop.api import v1, v2\n"
                "from shop.api.v1 import hello\n\napp = fw.App()\n"
                "app.route('POST /v1/hello')(hello.hello)\napp.route('POST /v2/hello')(v2.hello)\n"
                "app.route('POST /v2/orders')(v2.order)\n",
            },
        )

    def test_versioned_api_packages_a_handler_in_an_init_and_a_models_module_are_all_bound(
        self, tmp_path: Path
    ) -> None:
        self._versioned(tmp_path)
        generate(tmp_path)
        assert (tmp_path / "src/shop/api/v1/_fw_binders.py").is_file()
        assert (tmp_path / "src/shop/_fw_binders.py").is_file()  # shop.models.Order lives in package shop
        seen = probe(
            tmp_path,
            requests=[
                ("POST", "/v1/hello", {}, {"name": "Ada Lovelace"}),
                ("POST", "/v1/hello", {}, {"name": "Al"}),
                ("POST", "/v2/hello", {}, {"name": "Ada"}),
                ("POST", "/v2/hello", {}, {"name": "Ada Lovelace"}),
                ("POST", "/v2/orders", {}, {"sku": "abc", "address": {"city": "Oslo"}}),
                ("POST", "/v2/orders", {}, {"sku": "a", "address": {}}),
                ("GET", "/openapi.json", {}, None),
            ],
            config=["shop.settings:Shop.greeting", "shop.settings.db:Db.pool"],
        )
        assert seen.error is None, seen.output
        assert seen.statuses == [200, 400, 200, 400, 200, 400, 200]
        assert seen.errors[5] == ["address.city", "sku"]
        assert {"Order", "Address"} <= set(seen.schemas[6])
        assert {name.rsplit(".", 1)[-1] for name in seen.schemas[6]} >= {"Hello"}
        assert len([name for name in seen.schemas[6] if name.endswith("Hello")]) == 2  # v1's and v2's
        assert seen.config == {"shop.settings:Shop.greeting": "hi", "shop.settings.db:Db.pool": 5}

    def test_a_models_module_outside_the_handlers_folders_regenerates_under_the_pytest_plugin(
        self, tmp_path: Path
    ) -> None:
        self._versioned(tmp_path)
        generate(tmp_path)
        edit(tmp_path / "src/shop/models.py", "required,minlen=3", "required,minlen=5")
        write(
            tmp_path,
            {
                "tests/conftest.py": "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1] / 'src'))\n"
                "from shop.main import app  # imported before any test: the plugin must have run first\n",
                "tests/test_orders.py": "from starlette.testclient import TestClient\nfrom conftest import app\n\n"
                "def test_the_new_rule_binds():\n    with TestClient(app) as client:\n"
                "        answer = client.post('/v2/orders', json={'sku': 'abcd', 'address': {'city': 'Oslo'}})\n"
                "    assert answer.status_code == 400, answer.text\n",
            },
        )
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env=environment(),
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "1 passed" in done.stdout

    def test_settings_split_over_modules_load_whichever_is_imported_first(self, tmp_path: Path) -> None:
        write(
            tmp_path,
            {
                "pyproject.toml": pyproject("shop.main:app", ["src/shop"], ["src/shop"]),
                "src/shop/__init__.py": "",
                "src/shop/a.py": PRELUDE
                + "\n@dataclass\nclass A:\n    x: Annotated[str, fw.default('ax')]\n\nfw.register_config(A, 'aa')\n",
                "src/shop/b.py": PRELUDE
                + "\n@dataclass\nclass B:\n    y: Annotated[str, fw.default('by')]\n\nfw.register_config(B, 'bb')\n",
                "src/shop/main.py": "import fw\nimport shop.a, shop.b\n\napp = fw.App()\n",
                "src/shop/reverse.py": "import fw\nimport shop.b, shop.a\n\napp = fw.App()\n",
            },
        )
        generate(tmp_path)
        for app in ("shop.main:app", "shop.reverse:app"):
            seen = probe(tmp_path, app=app, config=["shop.a:A.x", "shop.b:B.y"])
            assert seen.error is None, seen.output
            assert seen.config == {"shop.a:A.x": "ax", "shop.b:B.y": "by"}
        late = subprocess.run(
            [sys.executable, "-c", "import sys; sys.path.insert(0, 'src'); import fw, shop.a; fw.parse_config([]); import shop.b"],
            cwd=tmp_path, capture_output=True, text=True, timeout=60, env=environment(),
        )  # fmt: skip
        assert late.returncode == 1
        assert "RuntimeError: register_config(B, 'bb') after parse_config" in late.stderr

    def test_a_package_left_without_bound_types_loses_its_generated_module_and_nothing_else(
        self, tmp_path: Path
    ) -> None:
        self._versioned(tmp_path)
        installed = tmp_path / "src/shop/api/.venv/lib/other/_fw_binders.py"
        write(tmp_path, {str(installed.relative_to(tmp_path)): "# Generated by `fw generate` elsewhere\n"})
        generate(tmp_path)
        assert (tmp_path / "src/shop/api/v1/_fw_binders.py").is_file()
        (tmp_path / "src/shop/api/v1/hello.py").write_text(
            "import fw\n\nasync def hello(request):\n    return fw.JSONResponse({})\n"
        )
        generate(tmp_path)
        assert not (tmp_path / "src/shop/api/v1/_fw_binders.py").exists()
        assert installed.is_file()  # a virtual environment is never the project's
        assert (tmp_path / "src/shop/api/_fw_binders.py").is_file()  # each handlers root keeps one

    def test_a_folder_without_init_is_refused_naming_the_folder(self, tmp_path: Path) -> None:
        self._versioned(tmp_path)
        write(
            tmp_path,
            {
                "src/shop/api/admin/users.py": PRELUDE
                + "\n@dataclass\nclass U:\n    n: int\n\nasync def h(r):\n    return await fw.parse(U, r)\n"
            },
        )
        done = fw(tmp_path, "generate")
        assert done.returncode == 1
        assert "src/shop/api/admin" in done.stderr and "__init__.py" in done.stderr
        assert "Traceback" not in done.stderr


ALIASES = """
from typing import Annotated

import fw

RequestId = Annotated[str, fw.header("X-Request-Id"), fw.check("required")]
Port = Annotated[int, fw.default("8080")]
"""


class TestAliases:
    @pytest.mark.parametrize("future", [True, False], ids=["from-future", "plain"])
    def test_an_edited_alias_is_never_bound_with_its_old_rules(self, tmp_path: Path, future: bool) -> None:
        head = "from __future__ import annotations\n\n" if future else ""
        write(
            tmp_path,
            {
                "pyproject.toml": pyproject("shop.main:app", ["src/shop"], ["src/shop"]),
                "src/shop/__init__.py": "",
                "src/shop/fields.py": ALIASES,
                "src/shop/main.py": head + PRELUDE + "from shop.fields import Port, RequestId\n\n"
                "@dataclass\nclass Ping:\n    request_id: RequestId\n\n"
                "@dataclass\nclass Server:\n    port: Port\n\nfw.register_config(Server, 'srv')\n"
                "app = fw.App()\n\n@app.route('POST /ping')\nasync def ping(request: fw.Request) -> fw.Response:\n"
                "    return fw.JSONResponse({'id': (await fw.parse(Ping, request)).request_id})\n",
            },
        )
        generate(tmp_path)
        old, new = {"X-Request-Id": "r1"}, {"X-Correlation-Id": "r1"}
        requests = [("POST", "/ping", old, {}), ("POST", "/ping", new, {})]
        first = probe(tmp_path, requests=requests, config=["shop.main:Server.port"])
        assert first.error is None, first.output
        assert first.statuses == [200, 400]
        assert first.config == {"shop.main:Server.port": 8080}

        edit(tmp_path / "src/shop/fields.py", '"X-Request-Id"', '"X-Correlation-Id"')
        stale = probe(tmp_path, requests=requests, binders=["shop.main:Ping"])
        assert stale.refused_as_stale, stale.output
        assert stale.statuses == [500, 500]

        edit(tmp_path / "src/shop/fields.py", 'fw.default("8080")', 'fw.default("9090")')
        stale_config = probe(tmp_path, config=["shop.main:Server.port"])
        assert stale_config.refused_as_stale and "srv" in (stale_config.error or ""), stale_config.output

        fresh = probe(tmp_path, requests=requests, config=["shop.main:Server.port"], regenerate=True)
        assert fresh.error is None, fresh.output
        assert fresh.statuses == [400, 200]
        assert fresh.config == {"shop.main:Server.port": 9090}


class TestInheritanceAndNames:
    def test_a_field_inherited_from_another_module_is_bound_and_its_edit_is_stale(
        self, tmp_path: Path
    ) -> None:
        write(
            tmp_path,
            {
                "pyproject.toml": pyproject("shop.main:app", ["src/shop/api"], []),
                "src/shop/__init__.py": "",
                "src/shop/base.py": PRELUDE
                + "\n@dataclass\nclass Named:\n    name: Annotated[str, fw.check('required,minlen=3')]\n",
                "src/shop/api/__init__.py": "",
                "src/shop/api/create.py": PRELUDE + "from shop.base import Named\n\n"
                "@dataclass\nclass Create(Named):\n    size: Annotated[int, fw.check('max=10')] = 1\n\n"
                "async def create(request: fw.Request) -> fw.Response:\n"
                "    c = await fw.parse(Create, request)\n    return fw.JSONResponse({'name': c.name, 'size': c.size})\n",
                "src/shop/main.py": "import fw\nfrom shop.api.create import create\n\napp = fw.App()\napp.route('POST /c')(create)\n",
            },
        )
        generate(tmp_path)
        requests = [
            ("POST", "/c", {}, {"name": "Ada", "size": 3}),
            ("POST", "/c", {}, {"name": "Al", "size": 11}),
        ]
        seen = probe(tmp_path, requests=requests)
        assert seen.error is None, seen.output
        assert seen.statuses == [200, 400]
        assert seen.errors[1] == ["name", "size"]
        edit(tmp_path / "src/shop/base.py", "minlen=3", "minlen=4")
        stale = probe(tmp_path, requests=requests, binders=["shop.api.create:Create"])
        assert stale.refused_as_stale, stale.output
        assert probe(tmp_path, requests=requests, regenerate=True).statuses == [400, 400]

    def test_the_same_class_name_in_two_packages_gets_two_binders(self, tmp_path: Path) -> None:
        files = {
            "pyproject.toml": pyproject("shop.main:app", ["src/shop"], []),
            "src/shop/__init__.py": "",
            "src/shop/main.py": "import fw\nfrom shop.a import req as a\nfrom shop.b import req as b\n\n"
            "app = fw.App()\napp.route('POST /a')(a.handle)\napp.route('POST /b')(b.handle)\n",
        }
        for package, rule in (("a", "minlen=3"), ("b", "maxlen=3")):
            files[f"src/shop/{package}/__init__.py"] = ""
            files[f"src/shop/{package}/req.py"] = (
                PRELUDE
                + f"\n@dataclass\nclass Hello:\n    name: Annotated[str, fw.check('required,{rule}')]\n\n"
                "async def handle(request: fw.Request) -> fw.Response:\n"
                "    return fw.JSONResponse({'name': (await fw.parse(Hello, request)).name})\n"
            )
        write(tmp_path, files)
        generate(tmp_path)
        seen = probe(
            tmp_path,
            requests=[("POST", p, {}, {"name": n}) for p in ("/a", "/b") for n in ("Ada Lovelace", "Al")],
        )
        assert seen.error is None, seen.output
        assert seen.statuses == [200, 400, 400, 200]
        edit(tmp_path / "src/shop/b/req.py", "maxlen=3", "maxlen=30")
        edited = probe(
            tmp_path, requests=[("POST", "/a", {}, {"name": "Ada"}), ("POST", "/b", {}, {"name": "Ada L"})]
        )
        assert edited.statuses == [200, 500]  # b's binder is stale, a's is not
        assert probe(
            tmp_path, requests=[("POST", "/b", {}, {"name": "Ada L"})], regenerate=True
        ).statuses == [200]


class TestRunningAndInstalling:
    def test_python_dash_m_runs_the_module_once_and_binds_and_configures_its_own_classes(
        self, tmp_path: Path
    ) -> None:
        _flat(tmp_path)
        (tmp_path / "src/shop/main.py").write_text(
            (tmp_path / "src/shop/main.py").read_text()
            + "\nRUNS = __import__('shop').__dict__.setdefault('runs', [])\nRUNS.append(__name__)\n"
            "if __name__ == '__main__':\n    import json, sys\n    from starlette.testclient import TestClient\n"
            "    fw.parse_config([])\n    conf = fw.config(Shop)\n"
            "    with TestClient(app, raise_server_exceptions=False) as client:\n"
            "        codes = [client.post('/hello', json=b).status_code for b in ({'name': 'Ada'}, {'name': 'Al'})]\n"
            "    print('PROBE ' + json.dumps({'requests': [{'status': c, 'errors': [], 'schemas': []} for c in codes],"
            " 'binders': {}, 'config': {'runs': RUNS, 'own': type(conf) is Shop, 'greeting': conf.greeting}}))\n"
        )
        generate(tmp_path)
        seen = probe(tmp_path, command=[sys.executable, "-m", "shop.main"], cwd=tmp_path / "src")
        assert seen.statuses == [200, 400], seen.output
        assert seen.config == {"runs": ["__main__"], "own": True, "greeting": "hello"}
        edit(tmp_path / "src/shop/main.py", "minlen=3", "minlen=2")
        stale = probe(tmp_path, command=[sys.executable, "-m", "shop.main"], cwd=tmp_path / "src")
        assert stale.statuses == [500, 500], stale.output  # refused, not bound with minlen=3
        generate(tmp_path)
        fresh = probe(tmp_path, command=[sys.executable, "-m", "shop.main"], cwd=tmp_path / "src")
        assert fresh.statuses == [200, 200], fresh.output

    def test_an_installed_copy_run_from_another_directory_binds_and_configures(self, tmp_path: Path) -> None:
        project, target, elsewhere = tmp_path / "project", tmp_path / "site", tmp_path / "elsewhere"
        elsewhere.mkdir()
        TestSubPackages._versioned(project)
        generate(project)
        # What a wheel install leaves: the package's files (generated modules included) in a
        # site directory, and no source tree on the path.
        shutil.copytree(project / "src/shop", target / "shop", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.rmtree(project / "src")  # only the installed copy is left to import
        seen = probe(
            project,
            requests=[
                ("POST", "/v1/hello", {}, {"name": "Ada"}),
                ("POST", "/v2/orders", {}, {"sku": "a", "address": {}}),
            ],
            config=["shop.settings.db:Db.pool"],
            cwd=elsewhere,
            path=[str(target)],
        )
        assert seen.error is None, seen.output
        assert seen.statuses == [200, 400]
        assert seen.errors[1] == ["address.city", "sku"]
        assert seen.config == {"shop.settings.db:Db.pool": 5}


class TestUpgrades:
    def test_files_generated_by_another_fw_are_named_by_doctor_and_regenerated_for_the_same_run(
        self, tmp_path: Path
    ) -> None:
        _flat(tmp_path)
        generate(tmp_path)
        binders = tmp_path / "src/shop/_fw_binders.py"
        old = binders.read_text().replace("# fw version: ", "# fw version: 0.0.1-was-")
        fingerprint = next(line for line in old.splitlines() if line.startswith("register("))
        binders.write_text(old.replace(fingerprint, fingerprint.replace(", '", ", '0", 1)))
        record = tmp_path / ".fw/generated.json"
        record.write_text(json.dumps({**json.loads(record.read_text()), "fw": "0.0.1"}))

        doctor = fw(tmp_path, "doctor")
        assert doctor.returncode == 1, doctor.stdout + doctor.stderr
        assert "src/shop/_fw_binders.py was generated by fw 0.0.1-was-" in doctor.stdout
        assert probe(tmp_path, requests=[("POST", "/hello", {}, VALID)]).statuses == [500]

        seen = probe(tmp_path, requests=[("POST", "/hello", {}, VALID)], regenerate=True)
        assert seen.statuses == [200], seen.output
        assert "fw changed from 0.0.1" in seen.output
        assert fw(tmp_path, "doctor").returncode == 0


class TestProjectDiscovery:
    def test_generate_in_a_fresh_uninstalled_src_layout_project_writes_the_openapi_document(
        self, tmp_path: Path
    ) -> None:
        _flat(tmp_path)
        edit(tmp_path / "pyproject.toml", "openapi = false\n", "")
        generate(tmp_path)
        document = json.loads((tmp_path / "src/shop/openapi.json").read_text())
        assert "Hello" in document["components"]["schemas"]

    def test_generate_finds_the_app_of_a_src_layout_project_whose_handlers_parse_nothing_yet(
        self, tmp_path: Path
    ) -> None:
        write(
            tmp_path,
            {
                "pyproject.toml": pyproject("shop.main:app", ["src/shop/api"], []).replace(
                    "openapi = false\n", ""
                ),
                "src/shop/__init__.py": "",
                "src/shop/api/__init__.py": "",
                "src/shop/main.py": "import fw\n\napp = fw.App()\n",
            },
        )
        generate(tmp_path)
        assert json.loads((tmp_path / "src/shop/openapi.json").read_text())["openapi"] == "3.1.0"

    def test_a_project_named_with_project_from_another_directory_reads_its_configuration_file(
        self, tmp_path: Path
    ) -> None:
        project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
        elsewhere.mkdir()
        _flat(project)
        write(project, {"config.dev.toml": "[server]\nport = 0.5\n"})
        generate(project)
        for cwd, arguments in ((elsewhere, ["--project", str(project)]), (project / "src", [])):
            done = fw(project, *arguments, "doctor", cwd=cwd)
            assert done.returncode == 1, done.stdout + done.stderr
            assert (
                "server.port" in done.stdout + done.stderr and "config.dev.toml" in done.stdout + done.stderr
            )


class TestServing:
    @pytest.mark.parametrize("command", ["run", "dev"])
    def test_fw_serving_regenerates_an_edited_declaration_and_serves_its_new_rules_at_once(
        self, tmp_path: Path, command: str
    ) -> None:
        import socket
        import time

        import httpx2

        _flat(tmp_path)
        generate(tmp_path)
        edit(tmp_path / "src/shop/main.py", "minlen=3", "minlen=20")
        with socket.socket() as probe_socket:
            probe_socket.bind(("127.0.0.1", 0))
            port = probe_socket.getsockname()[1]
        server = subprocess.Popen(
            [*FW_COMMAND, command, "--server-host", "127.0.0.1", "--server-port", str(port)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=environment(),
        )
        try:
            deadline = time.monotonic() + 60
            answer = None
            while answer is None and time.monotonic() < deadline and server.poll() is None:
                try:
                    answer = httpx2.post(f"http://127.0.0.1:{port}/hello", json=VALID, timeout=5)
                except httpx2.TransportError:
                    time.sleep(0.2)
            assert answer is not None, "the server did not answer"
            assert answer.status_code == 400  # the new rule, in the run that regenerated
            assert answer.json()["errors"][0]["field"] == "name"
        finally:
            server.terminate()
            output, _ = server.communicate(timeout=30)
        assert "fw: regenerated src/shop/_fw_binders.py" in output, output


class TestSingleFile:
    def test_a_single_file_app_listing_the_project_root_is_generated_and_bound(self, tmp_path: Path) -> None:
        write(
            tmp_path,
            {
                "pyproject.toml": pyproject("app:app", ["."], ["."]),
                "app.py": PRELUDE
                + "\n@dataclass\nclass Hello:\n    name: Annotated[str, fw.check('required,minlen=3')]\n\n"
                "@dataclass\nclass Conf:\n    greeting: Annotated[str, fw.default('hey')]\n\n"
                "fw.register_config(Conf, 'conf')\napp = fw.App()\n\n@app.route('POST /hello')\n"
                "async def hello(request: fw.Request) -> fw.Response:\n"
                "    return fw.JSONResponse({'name': (await fw.parse(Hello, request)).name})\n",
                # Folders without __init__.py whose files need no import are fine below the root.
                "tests/test_app.py": "def test_nothing():\n    pass\n",
                "scripts/tool.py": "print('a tool')\n",
            },
        )
        generate(tmp_path)
        assert (tmp_path / "_fw_binders.py").is_file() and (tmp_path / "_fw_config.py").is_file()
        seen = probe(
            tmp_path,
            app="app:app",
            requests=[("POST", "/hello", {}, VALID), ("POST", "/hello", {}, INVALID)],
            config=["app:Conf.greeting"],
        )
        assert seen.error is None, seen.output
        assert seen.statuses == [200, 400]
        assert seen.config == {"app:Conf.greeting": "hey"}
