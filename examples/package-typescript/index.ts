// gpu-ci's components from a TypeScript program: a GPU VM with an nvkind cluster and the
// Kubeflow recipe on it, ARC GPU runner scale sets on that cluster, and a local host.
// Add the package first (docs/multi-language.md): pulumi package add <gpu-ci>/gpu_ci_package
import * as pulumi from "@pulumi/pulumi";
import * as gpuci from "@pulumi/gpu-ci";

const config = new pulumi.Config();

const cluster = new gpuci.GpuCluster("cluster", {
    compartmentId: "ocid1.compartment.oc1..aaaaaaaaexamplecompartment",
    tenancyId: "ocid1.tenancy.oc1..aaaaaaaaexampletenancy",
    owner: "kubeflow-trainer-ci",
    network: {
        sshSourceCidrs: ["198.51.100.0/24"],
        apiSourceCidrs: ["198.51.100.0/24"],
    },
    vm: {
        shape: "VM.GPU.A10.1",
        count: 1,
        availabilityDomains: [0, 1, 2],
        sshAuthorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILP8Dewg0gHHpsIioWZ2NUIbGuM/IMIfN3OLYDd73YIu ci-admin@example"],
    },
    host: {
        target: "oci-vm",
        user: "ubuntu",
        privateKey: config.requireSecret("sshPrivateKey"),
    },
    cluster: {
        name: "gpu-ci",
        gpus: "all",
    },
    platform: {
        service: "kind",
        intent: "training",
        platform: "kubeflow",
    },
    metrics: false,
});

const runners = new gpuci.ArcRunnerScaleSets("arc", {
    cluster: {
        clusterStack: "organization/gpu-ci/gpu-dev",
    },
    githubApp: {
        appId: 1234567,
        installationId: 87654321,
        privateKey: config.requireSecret("githubAppPrivateKey"),
    },
    scaleSets: [
        {
            name: "gpu-a10",
            githubConfigUrl: "https://github.com/kubeflow",
            maxRunners: 4,
            runnerImage: "ghcr.io/actions/actions-runner@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
            runtimeClassName: "nvidia",
        },
    ],
    metrics: false,
});

const workstation = new gpuci.GpuRunnerHost("workstation", {
    host: {
        target: "local",
        cdi: true,
        dockerUser: "ci",
    },
});

export const kubeconfig = cluster.kubeconfig; // a secret
export const clusterName = cluster.clusterName;
export const cost = cluster.cost;
export const scaleSets = runners.scaleSets;
export const workstationHost = workstation.host;
