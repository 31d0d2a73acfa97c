package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The two ways {@link Swar#word} reads a word agree, and both refuse to read past the array. */
class SwarWordTest {

    @Test
    void aWordIsItsEightBytesLittleEndianAtEveryOffset() {
        byte[] b = "0,SLOG,1736408883657146.822\t,0.0,NPU:0\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        // worked by hand: "0,SLOG,1" is 30 2C 53 4C 4F 47 2C 31, byte 0 the lowest
        assertThat(Swar.varHandleWord(b, 0)).isEqualTo(0x312C474F4C532C30L);
        ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i + 8 <= b.length; i++) {
            assertThat(Swar.word(b, i)).as("offset %d", i).isEqualTo(le.getLong(i));
        }
    }

    @Test
    void unsafeReadsTheSameAsTheVarHandleWhereItIsUsed() {
        assumeTrue(Swar.UNSAFE != null, "sun.misc.Unsafe is not used on this JDK or byte order");
        Random r = new Random(17);
        byte[] b = new byte[4096 + 64];
        r.nextBytes(b);
        for (int i = 0; i + 8 <= b.length; i++) {
            assertThat(Swar.unsafeWord(b, i)).as("offset %d", i).isEqualTo(Swar.varHandleWord(b, i));
        }
        assertThatThrownBy(() -> Swar.unsafeWord(b, b.length - 7)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Swar.unsafeWord(b, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Swar.unsafeWord(new byte[5], 0)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void unsafeIsLeftAloneWhereItWouldWarnOrReadTheWrongOrder() {
        boolean fits = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN && Runtime.version().feature() <= 23;
        assertThat(Swar.UNSAFE != null).isEqualTo(fits);
    }
}
