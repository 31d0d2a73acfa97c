package io.hbmledger.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.vllmlog.DeviceType;
import org.junit.jupiter.api.Test;

/** The device type vLLM prints, as a type, and the accelerator and device key it stands for. */
class AcceleratorTest {

    @Test
    void printedDeviceTypesAreTypesAnyCase() {
        assertThat(DeviceType.of("npu")).contains(DeviceType.NPU);
        assertThat(DeviceType.of("CUDA")).contains(DeviceType.CUDA);
        // "# GPU blocks" (vLLM V0) names no device type; nor does an empty or missing text
        assertThat(DeviceType.of("gpu")).isEmpty();
        assertThat(DeviceType.of("")).isEmpty();
        assertThat(DeviceType.of(null)).isEmpty();
    }

    @Test
    void deviceTypeGivesTheAcceleratorAndItsKey() {
        assertThat(Accelerator.of(DeviceType.ROCM)).isEqualTo(Accelerator.Kind.GPU);
        assertThat(Accelerator.of(DeviceType.NPU)).isEqualTo(Accelerator.Kind.ASCEND);
        assertThat(Accelerator.of(DeviceType.XPU)).isEqualTo(Accelerator.Kind.UNKNOWN);
        assertThat(Accelerator.deviceKey(Accelerator.Kind.ASCEND, 3)).isEqualTo("npu:3");
        assertThat(Accelerator.deviceKey(Accelerator.Kind.GPU, 3)).isEqualTo("gpu:3");
        assertThat(Accelerator.deviceKey(Accelerator.Kind.UNKNOWN, 3)).isEqualTo("device:3");
    }
}
