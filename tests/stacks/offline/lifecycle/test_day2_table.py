"""The Day-2 table (docs/day-2.md) is true row by row: each row names the tests that plan its
change and assert every operation, and each of those tests exists. A row added without a
test, or a test renamed away from its row, fails here."""

from __future__ import annotations

import importlib

from stacks.offline.plan import REPO

ROWS: dict[str, list[str]] = {
    "`host.versions.toolkit`, `driverBranch`, `kind`, `kubectl`, `helm`": [
        "test_day2:test_a_toolkit_bump_updates_that_step_and_the_ones_after_in_place",
        "test_day2:test_a_driver_branch_bump_reruns_from_the_driver_on",
        "test_day2:test_a_tool_pin_bump_reruns_the_tools_and_adopts_the_cluster",
    ],
    "`cluster.nodeImage`, the GPU layout (`cluster.gpus`), `host.versions.nvkind`": [
        "test_day2:test_a_node_image_bump_replaces_the_cluster_and_everything_on_it",
        "test_day2:test_a_new_gpu_layout_replaces_the_cluster_on_purpose",
        "test_day2:test_an_nvkind_pin_bump_replaces_the_cluster_on_purpose",
    ],
    "the same, in a stack another stack reads (`gpu-dev` under `apps-dev`)": [
        "test_day2_stacks:test_a_producer_cluster_made_anew_replaces_the_consumer_platform",
        "test_day2_stacks:test_a_producer_change_in_place_leaves_the_consumer_alone",
    ],
    "`vm.sshAuthorizedKeys`": [
        "test_day2:test_adding_an_ssh_key_updates_the_keys_step_and_never_the_vm",
    ],
    "cloud-init user data (a new gpu-ci)": [
        "test_day2:test_changed_user_data_is_ignored_on_running_vms",
    ],
    "`runner.githubApp.privateKey` rotated": [
        "test_day2:test_rotating_the_github_app_key_updates_the_key_file_and_replaces_the_exporters_copy",
    ],
    "`vm.count` up, a new scale set, a recipe component enabled": [
        "test_day2:test_a_second_vm_only_creates",
        "test_day2:test_a_new_scale_set_only_creates",
        "test_day2:test_a_new_recipe_component_creates_it_and_reruns_the_checks",
    ],
    "`vm.availabilityDomains`, `tenancyId`": [
        "test_day2:test_a_new_fallback_list_moves_no_running_vm",
        "test_day2:test_a_new_tenancy_moves_no_running_vm",
    ],
    "`host.privateKey` rotated": [
        "test_day2_stacks:test_rotating_the_host_key_updates_every_remote_step",
    ],
    "a VM replaced (`--replace`, or a change OCI forces)": [
        "test_day2_vm_image:test_a_new_pinned_image_replaces_the_vm_and_remakes_what_was_on_it",
        "test_day2_stacks:test_a_vm_address_is_known_in_the_plan_and_unknown_once_the_vm_is_replaced",
        "test_day2_uncertain:test_a_replaced_vm_keeps_its_ignored_inputs_and_the_diff_says_so",
    ],
    "`vm.generation` raised": [
        "test_day2_uncertain:test_a_new_vm_generation_makes_the_vm_anew_from_the_programs_values",
    ],
    "`arc.cluster.oke.podsCidr` (anything that replaces the OKE cluster)": [
        "test_day2_uncertain:test_a_replaced_oke_cluster_replaces_its_provider_and_everything_on_it",
        "test_day2_uncertain:test_only_the_oke_kubeconfig_comes_from_an_unrecorded_lookup",
    ],
    "`arc.cluster.kubeconfig` rotated": [
        "test_day2_uncertain:test_a_rotated_cluster_kubeconfig_may_replace_never_replaces",
    ],
    "`network.existingSubnetId` moved": [
        "test_day2_uncertain:test_a_moved_existing_subnet_may_replace_the_nsg",
    ],
    "`oci:region`": [
        "test_day2_uncertain:test_a_region_change_lists_the_default_providers_update",
    ],
    "Grafana's generated password (its `length`, ...)": [
        "test_day2_uncertain:test_a_new_password_length_replaces_the_password_and_its_secret_first",
    ],
    "`vm.image.id` pinned to another image": [
        "test_day2_vm_image:test_a_new_pinned_image_replaces_the_vm_and_remakes_what_was_on_it",
        "test_day2_vm_image:test_a_newer_image_from_the_filter_changes_nothing",
    ],
    "`gpu-time-slicing:enabled=false` (in `platform.set`)": [
        "test_day2_time_slicing:test_disabling_it_alone_is_refused_naming_the_path_to_clear",
        "test_day2_time_slicing:test_turning_it_off_deletes_the_config_map_and_unnames_it_in_place",
    ],
    "`cluster.expectGpus` set where the layout already gives that many GPUs": [
        "test_day2_multi_gpu:test_expect_gpus_creates_the_gpu_checks_and_reruns_only_their_start_job",
    ],
    "the stack renamed (or copied: `arc` to `arc2`)": [
        "test_day2_stacks:test_a_renamed_stack_replaces_no_secret",
        "test_day2_stacks:test_a_secret_rotated_in_a_renamed_stack_still_shows",
    ],
}


def table_rows() -> list[str]:
    """The first cell of each row of docs/day-2.md's change table."""
    text = (REPO / "docs" / "day-2.md").read_text(encoding="utf-8")
    assert text.count("| change | what `pulumi up` does |") == 1
    table = text.split("| change | what `pulumi up` does |", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ")]  # not `|---|`
    return [row[2:].split(" | ", 1)[0] for row in rows]


def test_every_row_of_the_table_has_its_tests() -> None:
    assert table_rows() == list(ROWS)


def test_every_named_test_exists() -> None:
    for row, tests in ROWS.items():
        assert tests, row
        for name in tests:
            module, function = name.split(":")
            found = importlib.import_module(f"tests.stacks.offline.lifecycle.{module}")
            assert callable(getattr(found, function, None)), f"{row}: no {name}"
