"""Bedrock and Vertex AI through `agent-tui -p`, against loopback fakes that speak each wire format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.providers import FAKE_ACCESS_TOKEN
from tests.fakeapi.script import Reply, Text, sse_error

PROVIDER_PREFIXES = (
    "ANTHROPIC_",
    "AWS_",
    "CLAUDE_CODE_",
    "GOOGLE_",
    "CLOUD_ML_",
    "VERTEX_REGION_",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "SSL_CERT_",
    "REQUESTS_CA_BUNDLE",
)


def run_p(
    args: list[str], cwd: Path, env_extra: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess:
    """`agent-tui -p …` in a subprocess with only the provider variables the test gives."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(PROVIDER_PREFIXES)}
    env["AWS_CONFIG_FILE"] = env["AWS_SHARED_CREDENTIALS_FILE"] = str(cwd / "no-aws-config")
    env.update(env_extra)
    piped: dict = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        [sys.executable, "-m", "tui.cli.main", "-p", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        **piped,
    )


def write_user_settings(text: str) -> Path:
    """Write the user settings file (XDG_CONFIG_HOME is per test, see tests/conftest.py)."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-tui" / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def new_project(tmp_path: Path, settings: str = "") -> Path:
    """An empty project folder, with `settings` as the user settings when given."""
    folder = tmp_path / "proj"
    folder.mkdir()
    if settings:
        write_user_settings(settings)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path)


def bedrock_env(api: FakeAPI, **extra: str) -> dict[str, str]:
    return {
        "CLAUDE_CODE_USE_BEDROCK": "1",
        "AWS_REGION": "us-east-1",
        "ANTHROPIC_BEDROCK_BASE_URL": api.base_url,
        **extra,
    }


def vertex_env(api: FakeAPI, **extra: str) -> dict[str, str]:
    return {
        "CLAUDE_CODE_USE_VERTEX": "1",
        "CLOUD_ML_REGION": "us-east5",
        "ANTHROPIC_VERTEX_PROJECT_ID": "my-proj",
        "ANTHROPIC_VERTEX_BASE_URL": f"{api.base_url}/v1",
        **extra,
    }


def test_bedrock_streams_event_stream_frames_with_sigv4_headers(project):
    with FakeAPI([Reply([Text("hello from bedrock")])]) as api:
        proc = run_p(
            ["hi", "--model", "sonnet", "--output-format", "json"],
            project,
            bedrock_env(api, AWS_ACCESS_KEY_ID="AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY="not-a-secret"),
        )
        assert api.errors == []
        [request] = api.message_requests
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["result"] == "hello from bedrock" and result["usage"]["output_tokens"] > 0
    assert request.path == "/model/us.anthropic.claude-sonnet-5-5-v1:0/invoke-with-response-stream"
    assert request.headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/us-east-1/bedrock/aws4_request" in request.headers["authorization"]
    assert request.headers["x-amz-date"]


def test_bedrock_skip_auth_sends_unsigned_requests_without_aws_credentials(project):
    with FakeAPI([Reply([Text("through the gateway")])]) as api:
        proc = run_p(["hi"], project, bedrock_env(api, CLAUDE_CODE_SKIP_BEDROCK_AUTH="1"))
        [request] = api.message_requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "through the gateway"
    assert "authorization" not in request.headers and "x-amz-date" not in request.headers


def test_bedrock_model_ids_from_settings_and_provider_setting(project, tmp_path):
    write_user_settings(
        'provider = "bedrock"\n[model_ids]\nhaiku = "arn:aws:bedrock:us-east-1:123:inference-profile/h"\n'
    )
    with FakeAPI([Reply([Text("ok")])]) as api:
        env = bedrock_env(api, CLAUDE_CODE_SKIP_BEDROCK_AUTH="1")
        del env["CLAUDE_CODE_USE_BEDROCK"]
        proc = run_p(["hi", "--model", "haiku"], project, env)
        [request] = api.message_requests
    assert proc.returncode == 0, proc.stderr
    assert request.path == "/model/arn:aws:bedrock:us-east-1:123:inference-profile%2Fh/invoke-with-response-stream"


def _rsa_key_pem() -> str:
    """A throwaway RSA key for a fake service account (the token endpoint is the fake API)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def test_vertex_sends_the_application_default_bearer_token(project, tmp_path):
    with FakeAPI([Reply([Text("hello from vertex")])]) as api:
        adc = tmp_path / "adc.json"
        adc.write_text(
            json.dumps(
                {
                    "type": "service_account",
                    "client_email": "agent@my-proj.iam.example",
                    "private_key": _rsa_key_pem(),
                    "private_key_id": "k1",
                    "token_uri": f"{api.base_url}/token",
                    "project_id": "my-proj",
                }
            )
        )
        proc = run_p(["hi"], project, vertex_env(api, GOOGLE_APPLICATION_CREDENTIALS=str(adc)))
        [request] = api.message_requests
        assert next(r.path for r in api.requests) == "/token"
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "hello from vertex"
    assert (
        request.path
        == "/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict"
    )
    assert request.headers["authorization"] == f"Bearer {FAKE_ACCESS_TOKEN}"


def test_vertex_skip_auth_and_a_per_model_region_override(project):
    with FakeAPI([Reply([Text("unsigned")])]) as api:
        env = vertex_env(api, CLAUDE_CODE_SKIP_VERTEX_AUTH="1", VERTEX_REGION_CLAUDE_HAIKU_5_5="europe-west1")
        proc = run_p(["hi", "--model", "haiku"], project, env)
        [request] = api.message_requests
    assert proc.returncode == 0, proc.stderr
    assert "authorization" not in request.headers
    assert "/locations/europe-west1/publishers/anthropic/models/claude-haiku-5-5:streamRawPredict" in request.path


@pytest.mark.parametrize(
    ("env", "settings", "named"),
    [
        ({"CLAUDE_CODE_USE_BEDROCK": "1"}, "", "AWS_REGION"),
        ({"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "us-east5"}, "", "ANTHROPIC_VERTEX_PROJECT_ID"),
        ({"CLAUDE_CODE_USE_VERTEX": "1", "ANTHROPIC_VERTEX_PROJECT_ID": "p"}, "", "CLOUD_ML_REGION"),
        ({}, 'provider = "azure"\n', "`provider` setting"),
        ({"CLAUDE_CODE_USE_BEDROCK": "1", "CLAUDE_CODE_USE_VERTEX": "1"}, "", "CLAUDE_CODE_USE_VERTEX"),
    ],
)
def test_a_provider_that_cannot_work_is_one_sentence_and_exit_2(project, env, settings, named):
    if settings:
        write_user_settings(settings)
    proc = run_p(["hi"], project, env)
    assert proc.returncode == 2
    assert named in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_print_mode_without_a_provider_imports_no_cloud_sdk(project):
    with FakeAPI([Reply([Text("plain")])]) as api:
        code = (
            "import sys\nfrom tui.cli.main import main\n"
            "rc = main(['-p', 'hi', '--cwd', sys.argv[1]])\n"
            "loaded = [m for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore') or m.startswith('google')]\n"
            "assert rc == 0 and not loaded, (rc, loaded)\n"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith(PROVIDER_PREFIXES)}
        env.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-test")
        proc = subprocess.run(
            [sys.executable, "-c", code, str(project)], env=env, capture_output=True, text=True, timeout=60
        )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("provider", "says"),
    [("bedrock", "Bedrock found no AWS credentials"), ("vertex", "Vertex AI found no Google credentials")],
)
def test_missing_cloud_credentials_are_one_sentence_not_retried(project, tmp_path, provider, says):
    with FakeAPI([Reply([Text("never")])]) as api:
        if provider == "bedrock":
            env = bedrock_env(api, AWS_EC2_METADATA_DISABLED="true")  # no instance metadata lookup
        else:
            env = vertex_env(api, GOOGLE_APPLICATION_CREDENTIALS=str(tmp_path / "missing-adc.json"))
        proc = run_p(["hi"], project, env)
        assert api.requests == []
    assert proc.returncode == 2  # a credential to fix, as the README says for every provider setting
    assert says in proc.stderr and "Traceback" not in proc.stderr and "retry" not in proc.stderr.lower()


def test_a_missing_aws_profile_is_one_sentence_naming_it_and_exit_2(project):
    with FakeAPI([Reply([Text("never")])]) as api:
        proc = run_p(
            ["hi", "--output-format", "stream-json"],
            project,
            bedrock_env(api, AWS_PROFILE="no-such-profile", AWS_EC2_METADATA_DISABLED="true"),
        )
        assert api.requests == []
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "agent-tui: stopped (credentials): Bedrock could not use the AWS profile 'no-such-profile' (AWS_PROFILE): "
        "it is not in the AWS config files (~/.aws/config, ~/.aws/credentials, or AWS_CONFIG_FILE); fix AWS_PROFILE "
        "or add the profile."
    )
    assert "Unexpected error" not in proc.stderr and "ProfileNotFound" not in proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["subtype"] == "error_credentials"


@pytest.mark.parametrize(
    ("provider", "blocked", "named"), [("bedrock", "botocore", "boto3"), ("vertex", "google.auth", "google-auth")]
)
def test_a_missing_extra_is_one_sentence_and_exit_2(project, provider, blocked, named):
    env = {k: v for k, v in os.environ.items() if not k.startswith(PROVIDER_PREFIXES)}
    env.update(
        {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-1"}
        if provider == "bedrock"
        else {"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "us-east5", "ANTHROPIC_VERTEX_PROJECT_ID": "p"}
    )
    code = f"import sys\nsys.modules[{blocked!r}] = None  # as if not installed\nfrom tui.cli.main import main\nsys.exit(main(['-p', 'hi']))\n"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    hint = f"{sys.executable} -m pip install 'agent-tui-loop[{provider}]'"  # this project, by its PyPI name
    assert f"needs {named}: {hint}" in proc.stderr and "Traceback" not in proc.stderr


def test_a_bedrock_stream_exception_is_retried_like_an_overloaded_stream(project):
    write_user_settings("max_retries = 1\n")
    with FakeAPI([sse_error(2), Reply([Text("second try")])]) as api:
        proc = run_p(
            ["hi", "--output-format", "stream-json"], project, bedrock_env(api, CLAUDE_CODE_SKIP_BEDROCK_AUTH="1")
        )
        assert len(api.message_requests) == 2
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    retry = next(line for line in lines if line["type"] == "retry_scheduled")
    assert retry["reason"] == "overloaded"
    assert lines[-1]["result"] == "second try"


def test_a_usage_error_after_the_tls_prewarm_started_never_crashes_the_exit(tmp_path):
    """A setting found bad after `-p` began loading the CA bundle on its thread: exit 2, not SIGSEGV/SIGABRT."""
    project = new_project(tmp_path)
    codes = [
        run_p(
            ["hi"],
            project,
            {
                "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
                "ANTHROPIC_API_KEY": "sk-x",
                "ANTHROPIC_CUSTOM_HEADERS": "not a header",
            },
        ).returncode
        for _ in range(6)
    ]
    assert codes == [2] * 6  # before the fix most runs died in the interpreter teardown (-11, -6)
