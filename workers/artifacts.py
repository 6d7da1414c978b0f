"""A stored version's language, toolchain and built artifact (docs/bots.md, "Languages"): the database's side of
workers/sandbox/build.py, which builds without knowing of any model."""

from __future__ import annotations

from tournaments.models import BotVersion
from tournaments.uploads import upload_limits
from workers.sandbox.build import BuildResult, build_bot, manifest_for
from workers.sandbox.languages import toolchain
from workers.sandbox.unpacking import BadBotSource


def build_version(version: BotVersion) -> BuildResult:
    """Its language's toolchain, and for a compiled bot its build (once: a revalidation reuses the artifact), stored
    with the version; a failed build is the bot's fault, with the log its author reads. Validation calls it, and a
    match's seat for a version never validated (a try-out of manage.py try_bot)."""
    try:
        manifest = manifest_for(bytes(version.source), version.filename, upload_limits())
    except BadBotSource as exc:
        return BuildResult(False, f"The upload cannot be read: {exc}\n")
    note = f"Language: {manifest.language}; toolchain: {toolchain(manifest.language)}.\n"
    if not manifest.compiled or version.artifact:
        BotVersion.objects.filter(pk=version.pk).update(language=manifest.language,
                                                        toolchain=toolchain(manifest.language))
        return BuildResult(True, note)
    built = build_bot(bytes(version.source), version.filename, manifest, upload_limits())
    if built.ok:
        version.artifact, version.artifact_sha256 = built.artifact, built.sha256
        version.toolchain = toolchain(manifest.language)
        BotVersion.objects.filter(pk=version.pk).update(artifact=built.artifact, artifact_sha256=built.sha256,
                                                        language=manifest.language, toolchain=version.toolchain)
    return BuildResult(built.ok, note + built.log, built.artifact, built.seconds)
