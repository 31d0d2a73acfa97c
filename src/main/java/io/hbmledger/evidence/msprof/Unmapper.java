package io.hbmledger.evidence.msprof;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;

/**
 * Unmaps a mapped file window as soon as it has been read. Mapped pages count in the process's
 * resident memory until unmapped, and JDK 17 unmaps only when the buffer is garbage collected
 * (which a reader allocating almost nothing may not see for gigabytes), so without this the
 * resident memory would grow with the file. The one JDK 17 way is
 * {@code sun.misc.Unsafe.invokeCleaner} (module jdk.unsupported); where it cannot be reached,
 * {@link #available()} is false and the readers do not map at all but read into a buffer.
 */
final class Unmapper {

    private static final MethodHandle INVOKE_CLEANER = find();

    private Unmapper() {
    }

    static boolean available() {
        return INVOKE_CLEANER != null;
    }

    /** Unmaps {@code mapped}; it must not be read afterwards (nor any view of it). */
    static void unmap(ByteBuffer mapped) {
        try {
            INVOKE_CLEANER.invokeExact(mapped);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("could not unmap a read window of an msprof file", e);
        }
    }

    private static MethodHandle find() {
        try {
            Class<?> unsafe = Class.forName("sun.misc.Unsafe");
            java.lang.reflect.Field field = unsafe.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return MethodHandles.lookup()
                    .findVirtual(unsafe, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
                    .bindTo(field.get(null));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null; // no such JDK API here: the readers fall back to positional reads
        }
    }
}
