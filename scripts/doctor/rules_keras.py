"""Keras and the optimizer: which Keras tf.keras is, Keras 3's retracing, which of the Set up
page's Mac recipes this is, what the Keras in use does with optimizers, and float64."""

from __future__ import annotations

from scripts.core import mac_recipes
from scripts.core.compatibility import minor, same_version, version_tuple
from scripts.doctor.checks import (
    ADAMW_ISSUE,
    CORRECTNESS,
    FLOAT64_QUOTE,
    FUSED_DENSE_CHECK,
    KERAS37_METAL12_ISSUE,
    KERAS_2_14_OPTIMIZERS,
    KERAS_3_FROM,
    KERAS_211_XLA_ISSUE,
    LEGACY_FLAG_FROM,
    LEGACY_KERAS_2_15_SOURCE,
    LEGACY_KERAS_SOURCE,
    OPTIMIZER_ISSUE,
    SETUP,
    SYMPTOMS,
    Check,
    Status,
    gpu_environment_advice,
    install_command,
    is_arm_mac,
    keras_family,
    keras_in_use,
    legacy_keras,
    mac_recipe_fix,
    minor_text,
    on_recommended_python,
    tf_version,
)
from scripts.doctor.facts import Facts


def tf_keras_install(f: Facts, tf: str) -> str:
    """The tf-keras of this TensorFlow's minor. tf-keras requires the `tensorflow` distribution;
    beside tensorflow-cpu (the same TensorFlow) pip would add it as a second copy, so then
    --no-deps, as locks/main-overrides.txt does for this project's own environment."""
    command = f'python -m pip install "tf-keras~={minor_text(tf)}.0"'
    if f.packages.get("tensorflow-cpu") and not f.packages.get("tensorflow"):
        return command.replace("install ", "install --no-deps ", 1) + (
            " (--no-deps: tensorflow-cpu is the `tensorflow` tf-keras asks for)"
        )
    return command


def check_keras(f: Facts) -> Check:
    """Which Keras tf.keras is: Keras 3, or tf-keras with TF_USE_LEGACY_KERAS."""
    tf = tf_version(f)
    if not tf:
        return Check("keras", Status.SKIP, "no TensorFlow installed")
    keras = f.packages.get("keras")
    tf_keras = f.packages.get("tf-keras")
    if version_tuple(tf) >= LEGACY_FLAG_FROM and legacy_keras(f):
        flag = f"TF_USE_LEGACY_KERAS={f.env['TF_USE_LEGACY_KERAS']}"
        if not tf_keras:
            return Check(
                "keras",
                Status.FAIL,
                f"{flag}, but tf-keras is not installed: tf.keras cannot be imported",
                fix=_legacy_without_tf_keras_fix(f, tf),
                guide=SETUP,
                source=LEGACY_KERAS_2_15_SOURCE if minor(tf) == LEGACY_FLAG_FROM else None,
            )
        if minor(tf_keras) != minor(tf):
            return Check(
                "keras",
                Status.WARN,
                f"{flag}: tf-keras {tf_keras} with TensorFlow {tf} (minor versions differ)",
                fix=tf_keras_install(f, tf),
                guide=SETUP,
            )
        return Check(
            "keras",
            Status.PASS,
            f"Keras 2 through tf-keras {tf_keras} ({flag})",
            note=import_keras_note(f),
            source=LEGACY_KERAS_SOURCE if import_keras_note(f) else None,
        )
    if f.tf.keras_error:
        return Check(
            "keras",
            Status.FAIL,
            f"tf.keras does not import: {f.tf.keras_error}",
            fix=_keras_install(f, tf),
            guide=SETUP,
        )
    if version_tuple(tf) >= KERAS_3_FROM and (not keras or version_tuple(keras) < (3,)):
        return Check(
            "keras",
            Status.WARN,
            f"keras {keras or 'not installed'}: TensorFlow {tf} uses Keras 3 as tf.keras",
            fix=f'python -m pip install "keras=={f.pins.keras or "3"}"',
            guide=SETUP,
        )
    if version_tuple(tf) < KERAS_3_FROM and keras and version_tuple(keras) >= (3,):
        return Check(
            "keras",
            Status.WARN,
            f"Keras {keras} with TensorFlow {tf}: before 2.16, tf.keras is Keras 2",
            fix=install_command(f),
            guide=SETUP,
        )
    backend = f.env.get("KERAS_BACKEND")
    if backend and backend != "tensorflow" and version_tuple(keras) >= (3,):
        return Check(
            "keras",
            Status.WARN,
            f"Keras {keras}, but KERAS_BACKEND={backend}: code that imports keras runs on "
            f"{backend}, not TensorFlow",
            fix="unset KERAS_BACKEND",
            guide=SETUP,
        )
    if version_tuple(tf) >= KERAS_3_FROM and tf_keras and is_arm_mac(f):
        return Check(
            "keras",
            Status.WARN,
            f"tf-keras {tf_keras} is installed, but TF_USE_LEGACY_KERAS is not set to 1: tf.keras "
            f"is Keras {keras}, the Keras 3 path reported slow on the Metal GPU",
            fix="export TF_USE_LEGACY_KERAS=1 before Python starts (a notebook or IDE: "
            'os.environ["TF_USE_LEGACY_KERAS"] = "1" before `import tensorflow`)',
            guide=SETUP,
            source=LEGACY_KERAS_SOURCE,
        )
    line = "Keras 3" if version_tuple(keras) >= (3,) else "Keras 2"
    pinned = f.pins.keras and keras != f.pins.keras
    pin = f"; this guide measures with {f.pins.keras}" if pinned else ""
    return Check("keras", Status.PASS, f"{line} ({keras}) is tf.keras{pin}")


def _legacy_without_tf_keras_fix(f: Facts, tf: str) -> str:
    """The flag without tf-keras: install the tf-keras of TensorFlow's minor, or unset the flag.
    Before 2.16, tf.keras without the flag is the Keras 2 that TensorFlow requires, so unsetting
    comes first there; from 2.16 it is Keras 3, the path reported slow on the Metal GPU."""
    install = tf_keras_install(f, tf)
    if version_tuple(tf) < KERAS_3_FROM:
        return (
            f"unset TF_USE_LEGACY_KERAS (TensorFlow {minor_text(tf)}'s tf.keras is then the "
            f"Keras {minor_text(tf)} it requires), or {install}"
        )
    return f"{install}, or unset TF_USE_LEGACY_KERAS"


def _keras_install(f: Facts, tf: str) -> str | None:
    """The Keras tf.keras needs: Keras 3 (this project's pin) from TensorFlow 2.16, else the
    Keras 2 of TensorFlow's minor, which tensorflow-macos and tensorflow 2.15 and older require."""
    if version_tuple(tf) < KERAS_3_FROM:
        return f'python -m pip install "keras~={minor_text(tf)}.0"'
    return f'python -m pip install "keras=={f.pins.keras}"' if f.pins.keras else None


def import_keras_note(f: Facts) -> str | None:
    """When tf.keras is tf-keras but the keras package is Keras 3: what `import keras` gives."""
    keras = f.packages.get("keras")
    if not keras or version_tuple(keras) < (3,):
        return None
    return (
        f"`import keras` still loads Keras {keras} (Keras 3): TF_USE_LEGACY_KERAS changes only "
        "what tf.keras means. Write tf.keras (`import tensorflow as tf`, then tf.keras.layers...) "
        "or `import tf_keras as keras`; code written as `import keras`, as in Keras' own "
        "documentation, runs on Keras 3"
    )


def check_retracing(f: Facts) -> Check:
    """Keras 3.3-3.6 with TensorFlow 2.16 retrace train_on_batch on every call (checked here)."""
    name = "keras retracing"
    tf = tf_version(f)
    which, keras = keras_in_use(f)
    if not tf or minor(tf) != (2, 16) or which != "keras" or version_tuple(keras) < (3,):
        return Check(name, Status.SKIP, "applies to TensorFlow 2.16 with Keras 3")
    if (3, 3) <= version_tuple(keras) < (3, 7):
        found = (
            f"Keras {keras} with TensorFlow {tf}: `train_on_batch` traces its step again on "
            "every call (this project saw it with 3.3.3, 3.4.1 and 3.6.0, not with 3.7.0)"
        )
        if is_arm_mac(f) and f.packages.get("tensorflow-metal"):
            return _retracing_on_metal(f, found)
        return Check(
            name,
            Status.WARN,
            found,
            fix='python -m pip install "keras>=3.7"',
            guide=f"{SYMPTOMS}#keras-retracing",
        )
    if version_tuple(keras) >= (3, 7):
        return Check(
            name,
            Status.PASS,
            f"Keras {keras}: 3.7.0 and later did not retrace `train_on_batch` in this project",
        )
    return Check(name, Status.SKIP, f"Keras {keras}: not checked by this project (3.3-3.6 retrace)")


def _retracing_on_metal(f: Facts, found: str) -> Check:
    """On the Metal GPU, Keras 3.7+ is no cure: the fix is the recipe for this Python."""
    metal = f.packages.get("tensorflow-metal")
    caveat = (
        "`keras>=3.7` alone keeps Keras 3 on the Metal GPU, the path reported slow "
        "(tensorflow/tensorflow#63854)"
    )
    if same_version(metal, "1.2.0"):
        caveat += (
            "; with tensorflow-metal 1.2.0 it is the pair keras-team/keras#21668 reports "
            'giving "strange" results (Keras 3.6 gave the expected ones, 3.7 and later did not)'
        )
    if on_recommended_python(f):
        fix = mac_recipe_fix(f)
    else:
        fix = (
            'python -m pip uninstall -y tensorflow-metal && python -m pip install "keras>=3.7" '
            f"(TensorFlow on the CPU); {gpu_environment_advice()}"
        )
    return Check(
        "keras retracing",
        Status.WARN,
        found,
        fix=fix,
        guide=f"{SYMPTOMS}#keras-retracing",
        note=caveat,
        source=KERAS37_METAL12_ISSUE if same_version(metal, "1.2.0") else None,
    )


def check_optimizer(f: Facts) -> Check:
    """What the Keras in use does with optimizers on Apple silicon (from each version's source).

    Keras 2.11 has no Apple check; 2.12-2.13 swap every optimizer for its legacy version;
    2.14-2.15 and tf-keras swap names ("adam") only; Keras 3 has no legacy optimizers.
    """
    if not is_arm_mac(f):
        return Check("optimizer", Status.SKIP, "applies to Apple-silicon Macs")
    tf = tf_version(f)
    which, version = keras_in_use(f)
    if not tf or not version:
        return Check("optimizer", Status.SKIP, "no Keras installed")
    keras = version_tuple(version)
    label = f"{'tf-keras' if which == 'tf-keras' else 'Keras'} {version}"
    if which == "keras" and keras >= (3,):
        return Check(
            "optimizer",
            Status.PASS,
            f"{label}: Keras 3 has no legacy optimizers and no Apple-silicon fallback",
            note="Keras 3's optimizers update weights with many small operations and never call "
            "the plugin's fused ResourceApplyAdam, the cause Apple's engineer gave for slow "
            "optimizers on Metal; whether Keras 3 is slow for that reason has not been measured. "
            f"Keras 3 is not a cure for slow optimizers (see the mac recipe check and {SETUP})",
            source=OPTIMIZER_ISSUE,
        )
    if which == "keras" and keras[:2] == (2, 11):
        return Check(
            "optimizer",
            Status.WARN,
            f"{label}: its new optimizers compile with XLA when a GPU is listed, which Metal "
            "cannot do (`could not find registered platform with id`); it has no Apple fallback",
            fix="use tf.keras.optimizers.legacy.Adam() (or the legacy version of yours), or "
            f"install {mac_recipe_fix(f)}",
            guide=f"{SYMPTOMS}#xla-could-not-find-registered-platform",
            source=KERAS_211_XLA_ISSUE,
        )
    if which == "keras" and (2, 12) <= keras < (2, 14):
        return Check(
            "optimizer",
            Status.PASS,
            f"{label}: swaps every optimizer for its legacy version on Apple silicon, with the "
            "warning 'Falling back to the legacy Keras optimizer'",
            note="AdamW has no legacy version, so it fails under the fallback; saving and "
            "loading optimizer state is also reported to break",
            source=ADAMW_ISSUE,
        )
    if which == "tf-keras" or (2, 14) <= keras < (3,):
        return Check(
            "optimizer",
            Status.PASS,
            f'{label}: optimizer names such as optimizer="adam" get the legacy optimizers on '
            "Apple silicon; instances such as tf.keras.optimizers.Adam() do not",
            note="pass a name or a tf.keras.optimizers.legacy.* instance: Keras warns that the "
            "newer optimizers run slowly on M1/M2; AdamW has no legacy version",
            source=KERAS_2_14_OPTIMIZERS,
        )
    return Check("optimizer", Status.PASS, f"{label}: older than the 2.11 optimizers")


def check_mac_recipe(f: Facts) -> Check:
    """Which of the Set up page's Mac recipes this is (data/mac_recipes.json), and its problems."""
    name = "mac recipe"
    if not is_arm_mac(f):
        return Check(name, Status.SKIP, "applies to Apple-silicon Macs (native arm64)")
    tf = tf_version(f)
    if not tf:
        return Check(name, Status.SKIP, "no TensorFlow installed")
    which, keras_version = keras_in_use(f)
    family = keras_family(f)
    metal = f.packages.get("tensorflow-metal")
    keras_text = f"{which} {keras_version or '?'}"
    found = f"TensorFlow {tf}, {keras_text}, tensorflow-metal {metal or 'not installed'}"
    if which == "tf-keras" and not keras_version:
        return Check(
            name,
            Status.SKIP,
            f"{found}: TF_USE_LEGACY_KERAS makes tf.keras tf-keras, which is not installed, so "
            "no recipe can be named (the keras check says what to install)",
        )
    recipe = mac_recipes.identify(tf, metal, family)
    fix = mac_recipe_fix(f)
    if recipe is None:
        return Check(
            name,
            Status.WARN,
            f"{found}: none of the recipes compared on the Set up page",
            fix=fix,
            guide=SETUP,
        )
    if mac_recipes.is_warned(recipe):
        issues = " ".join(issue["text"] for issue in recipe["known_issues"])
        first = recipe["known_issues"][0]["sources"][0]
        return Check(
            name,
            Status.WARN,
            f"{found} is the recipe '{recipe['name']}', with reported problems: {issues}",
            fix=fix,
            guide=SETUP,
            source=mac_recipes.load()["sources"][first],
        )
    what = "the recommended recipe" if recipe["advice"] == "recommended" else "a listed recipe"
    notes = []
    if metal:
        notes.append(
            "no recipe is known to give the GPU the same results as the CPU: check your model "
            f"with the snippet on {CORRECTNESS}"
        )
    if metal and family == "keras2":
        notes.append(
            "Keras 2's Dense(..., activation='relu') is the MatMul -> BiasAdd -> Relu pattern "
            f"reported wrong in graph mode on Metal: run the check on {FUSED_DENSE_CHECK}"
        )
    if which == "tf-keras" and import_keras_note(f):
        notes.append("write tf.keras or `import tf_keras as keras`: `import keras` is Keras 3")
    pinned = mac_recipes.pinned_version(recipe, "tensorflow")
    if pinned and not same_version(pinned, tf):
        # Matched by minor: TensorFlow 2.15.1 is the 2.15 recipe, but not the build it pins.
        what += f" by its minor version (it pins TensorFlow {pinned}, not {tf})"
    return Check(
        name,
        Status.PASS,
        f"{found}: {what}, '{recipe['name']}'",
        note="; ".join(notes) or None,
    )


def check_float64(f: Facts) -> Check:
    """Keras' default float type; Metal has no float64."""
    if not f.tf.ok or not f.tf.floatx:
        return Check("float64", Status.SKIP, "Keras' default float type unknown (no tf.keras)")
    metal = is_arm_mac(f) and "GPU:0" in f.tf.devices
    if f.tf.floatx == "float64" and metal:
        return Check(
            "float64",
            Status.WARN,
            "Keras' default float type is float64; Metal has no 64-bit floats, so these "
            "layers cannot run on the GPU",
            fix='keras.config.set_floatx("float32"), or set "floatx": "float32" in '
            "~/.keras/keras.json",
            guide=f"{SYMPTOMS}#float64-not-on-gpu",
            source=FLOAT64_QUOTE,
        )
    note = (
        "look for tf.float64 / dtype='float64' in your code: Metal cannot run them"
        if metal
        else None
    )
    return Check("float64", Status.PASS, f"Keras' default float type is {f.tf.floatx}", note=note)
