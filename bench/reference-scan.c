/*
 * Reference point for bench/run-benchmark, not part of hbm-ledger: the least a program must do
 * to read every cell of a CSV export, written plainly in C. Each line's cells are parsed (a cell
 * that starts with a digit becomes an int64, its digits only; any other cell is hashed) and a
 * maximum per column is kept. Files are cut into parts of 64 MiB at line starts and the parts
 * run on one thread per core, as hbm-ledger does. No units, devices, time alignment, warnings
 * or output: it shows what parsing alone costs on this machine, beside `wc -l`, which only
 * counts line breaks (with SIMD) and parses nothing.
 *
 *   gcc -O2 -pthread -o reference-scan bench/reference-scan.c
 *   reference-scan THREADS FILE...      prints the number of lines read
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF (1 << 16)
#define PART (64L << 20)
#define COLS 16

typedef struct {
    const char *path;
    off_t from, to; /* lines that start in [from, to) belong to this part */
    uint64_t lines, hash;
    int64_t max[COLS];
} Part;

static Part *parts;
static int nparts;
static int next_part;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void scan_line(Part *p, const char *s, const char *e) {
    int col = 0;
    while (s <= e) {
        int64_t v = 0;
        uint64_t h = 0;
        int number = (unsigned) (*s - '0') < 10;
        while (s < e && *s != ',') {
            unsigned d = (unsigned) (*s - '0');
            if (number && d < 10) {
                v = v * 10 + d;
            } else {
                h = h * 31 + (unsigned char) *s;
            }
            s++;
        }
        if (number) {
            if (col < COLS && v > p->max[col]) {
                p->max[col] = v;
            }
        } else {
            p->hash ^= h;
        }
        s++;
        col++;
    }
    p->lines++;
}

static void scan_part(Part *p, char *buf) {
    int fd = open(p->path, O_RDONLY);
    if (fd < 0) {
        perror(p->path);
        exit(2);
    }
    off_t pos = p->from; /* file offset of buf[0] + filled */
    if (pos > 0) {        /* the line that runs into this part belongs to the one before */
        char c;
        while (pread(fd, &c, 1, pos - 1) == 1 && c != '\n') {
            pos++;
        }
    }
    off_t line_start = pos;
    int filled = 0;
    while (line_start < p->to) {
        ssize_t got = pread(fd, buf + filled, BUF - filled, pos);
        if (got <= 0) {
            if (filled > 0) {
                scan_line(p, buf, buf + filled); /* last line without a line break */
            }
            break;
        }
        pos += got;
        int n = filled + (int) got, at = 0;
        char *nl;
        while (line_start < p->to && (nl = memchr(buf + at, '\n', n - at)) != NULL) {
            scan_line(p, buf + at, nl);
            line_start += nl + 1 - (buf + at);
            at = (int) (nl + 1 - buf);
        }
        memmove(buf, buf + at, n - at);
        filled = n - at;
    }
    close(fd);
}

static void *worker(void *unused) {
    (void) unused;
    char *buf = malloc(BUF);
    for (;;) {
        pthread_mutex_lock(&lock);
        int i = next_part++;
        pthread_mutex_unlock(&lock);
        if (i >= nparts) {
            break;
        }
        scan_part(&parts[i], buf);
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: reference-scan THREADS FILE...\n");
        return 2;
    }
    int threads = atoi(argv[1]);
    for (int a = 2; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) {
            perror(argv[a]);
            return 2;
        }
        long n = st.st_size > PART ? st.st_size / PART : 1;
        parts = realloc(parts, sizeof(Part) * (nparts + n));
        for (long k = 0; k < n; k++) {
            Part *p = &parts[nparts++];
            memset(p, 0, sizeof *p);
            p->path = argv[a];
            p->from = st.st_size * k / n;
            p->to = st.st_size * (k + 1) / n;
        }
    }
    pthread_t t[256];
    if (threads < 1 || threads > 256) {
        threads = 1;
    }
    for (int k = 0; k < threads; k++) {
        pthread_create(&t[k], NULL, worker, NULL);
    }
    uint64_t lines = 0, hash = 0;
    for (int k = 0; k < threads; k++) {
        pthread_join(t[k], NULL);
    }
    for (int k = 0; k < nparts; k++) {
        lines += parts[k].lines;
        hash ^= parts[k].hash;
    }
    printf("%llu lines (hash %llx)\n", (unsigned long long) lines, (unsigned long long) hash);
    return 0;
}
