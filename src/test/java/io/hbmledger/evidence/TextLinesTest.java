package io.hbmledger.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TextLinesTest {

    @Test
    void crlfEndsLinesButLoneCrStaysInside() {
        assertThat(TextLines.split("a\r\nb\rc\nd")).containsExactly("a", "b\rc", "d");
    }

    @Test
    void trailingNewlineOpensNoEmptyLine() {
        assertThat(TextLines.split("x\n\ny\n")).containsExactly("x", "", "y");
    }
}
