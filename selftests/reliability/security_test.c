// SPDX-License-Identifier: GPL-2.0-only
/*
 * Security checks of the socpmu PMUs, their sysfs and debugfs files, run as
 * root with the unprivileged side done by a child that drops to nobody
 * (setgroups/setresgid/setresuid: busybox has no su):
 *  - unprivileged_system_wide: with perf_event_paranoid at the boot default
 *    and at 2 (upstream's default), nobody cannot open a system-wide event
 *    on any socpmu PMU (EACCES/EPERM), while a per-task user-only software
 *    event works at 2 (so the refusal is about system-wide counting);
 *  - debugfs_root_only: the socpmu debugfs files (simulator, migrate
 *    helper, drivers) belong to root, nobody can write any of them, and
 *    nobody can open any of them;
 *  - debugfs_modes_match_ops: a debugfs file that cannot be read is 0200
 *    (write-only, not readable-looking), one that can be read has 0400;
 *  - sysfs_not_writable: no file of a socpmu PMU or of the simulator is
 *    writable by anyone but root, and nobody cannot open one for writing;
 *  - aux_no_stale_data: for an AUX PMU (sifive_trace), a new AUX buffer
 *    holds neither freed user memory nor the trace of an earlier session:
 *    exactly its own stores, zeroes past its head. Skipped without one.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <grp.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "reliability.h"

#include <uapi/socpmu/sifive_itc.h>

#define NOBODY		65534
#define MAX_FILES	8192

/* ---- running as nobody ---- */

/*
 * Runs @fn(@arg) in a child that dropped every privilege (uid and gid
 * nobody, no supplementary groups). Its results come back through @out
 * (@len bytes, shared memory). Returns the child's exit status or -errno.
 */
static int as_nobody(int (*fn)(void *arg, void *out), void *arg, void *out, size_t len)
{
	void *shm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	if (shm == MAP_FAILED)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY) || !geteuid())
			_exit(200);
		_exit(fn(arg, shm));
	}
	waitpid(pid, &status, 0);
	memcpy(out, shm, len);
	munmap(shm, len);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -EINTR;
}

/* ---- perf_event_paranoid ---- */

#define MAX_PMUS	32

struct opens {
	int n;
	struct {
		char pmu[SP_NAME_LEN];
		int ret;	/* 0 or -errno */
	} r[MAX_PMUS];
	int control;		/* per-task user-only software event */
	int itc;		/* opening the ITC device (1: there is none) */
};

static struct rel_pmu pmus[MAX_PMUS];
static int npmus;

static int try_system_wide(void *arg, void *out)
{
	struct opens *o = out;

	(void)arg;
	for (int i = 0; i < npmus; i++) {
		const struct rel_pmu *p = &pmus[i];
		struct perf_event_attr attr = { .size = sizeof(attr), .type = (uint32_t)p->type };

		if (p->nalias) {
			attr.config = p->alias[0].cfg[0];
			attr.config1 = p->alias[0].cfg[1];
			attr.config2 = p->alias[0].cfg[2];
		}
		snprintf(o->r[o->n].pmu, SP_NAME_LEN, "%.63s", p->name);
		o->r[o->n].ret = sp_try_open(&attr, -1, p->cpu >= 0 ? p->cpu : 0, -1);
		o->n++;
	}
	{
		struct perf_event_attr attr = {
			.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_TASK_CLOCK,
			.exclude_kernel = 1, .exclude_hv = 1,
		};

		o->control = sp_try_open(&attr, 0, -1, -1);
	}
	/* The ITC device writes into whatever trace runs: not for users either */
	o->itc = 1;
	if (sp_path_exists(SIFIVE_ITC_DEVICE)) {
		int fd = open(SIFIVE_ITC_DEVICE, O_RDWR);

		o->itc = fd < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

static void create_one_of_each(struct rel_simdev *devs, int *n)
{
	*n = 0;
	if (!sp_sim_available())
		*n = rel_sim_create_all(devs, 16, "sec_", "");
	if (*n < 0)
		*n = 0;
}

TEST(unprivileged_system_wide)
{
	static const char *const path = "/proc/sys/kernel/perf_event_paranoid";
	struct rel_simdev devs[16];
	char orig[16], val[16];
	int ndev, checked = 0;

	if (geteuid())
		SKIP(return, "needs root");
	create_one_of_each(devs, &ndev);
	npmus = rel_pmus_load(pmus, MAX_PMUS);
	if (npmus <= 0) {
		rel_sim_delete_all(devs, ndev);
		SKIP(return, "no socpmu PMU");
	}
	ASSERT_LT(0, sp_read_file(path, orig, sizeof(orig)));
	sp_strip_nl(orig);
	ksft_print_msg("perf_event_paranoid at boot: %s\n", orig);
	EXPECT_LE(2, atoi(orig)) TH_LOG("the boot default lets users count system-wide");

	for (int round = 0; round < 2; round++) {
		struct opens o = { 0 };
		int level = round ? 2 : atoi(orig);

		snprintf(val, sizeof(val), "%d", level);
		ASSERT_EQ(0, sp_write_file(path, val));
		ASSERT_EQ(0, as_nobody(try_system_wide, NULL, &o, sizeof(o)));
		ASSERT_EQ(npmus, o.n);
		for (int i = 0; i < o.n; i++) {
			EXPECT_TRUE(o.r[i].ret == -EACCES || o.r[i].ret == -EPERM)
				TH_LOG("paranoid %d: nobody opened a system-wide event on %s: %s",
				       level, o.r[i].pmu, o.r[i].ret ? strerror(-o.r[i].ret) : "success");
			checked++;
		}
		if (o.itc != 1)
			EXPECT_TRUE(o.itc == -EACCES || o.itc == -EPERM)
				TH_LOG("paranoid %d: nobody opened %s: %s", level, SIFIVE_ITC_DEVICE,
				       o.itc ? strerror(-o.itc) : "success");
		if (level == 2)
			EXPECT_EQ(0, o.control)
				TH_LOG("paranoid 2: nobody cannot count its own task: %s",
				       strerror(-o.control));
	}
	ASSERT_EQ(0, sp_write_file(path, orig));
	rel_sim_delete_all(devs, ndev);
	ksft_print_msg("%d refused system-wide opens as nobody over %d PMUs\n", checked, npmus);
}

/* ---- files ---- */

struct files {
	int n;
	char path[MAX_FILES][160];
	mode_t mode[MAX_FILES];
};

static struct files *files;
static const char *walk_skip;	/* don't descend below directories named so */

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D && walk_skip && !strcmp(path + strlen(path) - strlen(walk_skip),
						  walk_skip))
		return FTW_SKIP_SUBTREE;
	if ((type != FTW_F && type != FTW_D) || files->n >= MAX_FILES ||
	    strlen(path) >= sizeof(files->path[0]))
		return FTW_CONTINUE;
	snprintf(files->path[files->n], sizeof(files->path[0]), "%s", path);
	files->mode[files->n] = st->st_mode | (st->st_uid ? S_ISVTX : 0);	/* mark non-root */
	files->n++;
	return FTW_CONTINUE;
}

static void walk(const char *root, const char *skip)
{
	walk_skip = skip;
	nftw(root, collect, 16, FTW_PHYS | FTW_ACTIONRETVAL);
}

struct denied {
	int n, opened;
	char first[200];
};

/* As nobody: open every file of @files with (O_RDONLY if @read, and) O_WRONLY */
static int try_files(void *arg, void *out)
{
	struct denied *d = out;
	bool read = *(bool *)arg;

	for (int i = 0; i < files->n; i++) {
		int fds[2] = { -1, -1 };

		if (S_ISDIR(files->mode[i])) {
			if (read && access(files->path[i], X_OK) == 0)
				fds[0] = 0;	/* could enter it */
		} else {
			if (read)
				fds[0] = open(files->path[i], O_RDONLY);
			fds[1] = open(files->path[i], O_WRONLY);
		}
		for (int k = 0; k < 2; k++) {
			if (fds[k] < 0)
				continue;
			if (!d->opened++)
				snprintf(d->first, sizeof(d->first), "%s (%s)", files->path[i],
					 k ? "write" : "read");
			if (fds[k] > 0)
				close(fds[k]);
		}
		d->n++;
	}
	return 0;
}

TEST(debugfs_root_only)
{
	static const char *const roots[] = {
		SP_SIM_DEBUGFS, SP_DEBUGFS "/socpmu_migrate", SP_DEBUGFS "/sifive_trace",
	};
	struct rel_simdev devs[16];
	struct denied d = { 0 };
	bool read = true;
	struct stat st;
	int ndev, bad = 0;

	if (geteuid())
		SKIP(return, "needs root");
	create_one_of_each(devs, &ndev);
	files = mmap(NULL, sizeof(*files), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, files);
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++)
		if (sp_path_exists(roots[i]))
			walk(roots[i], NULL);
	if (!files->n) {
		rel_sim_delete_all(devs, ndev);
		SKIP(return, "no socpmu debugfs files");
	}
	/* debugfs itself: root only */
	ASSERT_EQ(0, stat(SP_DEBUGFS, &st));
	EXPECT_EQ(0, st.st_mode & 0007) TH_LOG("%s is mode %o", SP_DEBUGFS, st.st_mode & 07777);

	for (int i = 0; i < files->n; i++) {
		mode_t m = files->mode[i];

		if ((m & S_ISVTX) || (m & 0022)) {
			if (bad++ < 10)
				TH_LOG("%s: mode %o%s", files->path[i], m & 0777,
				       (m & S_ISVTX) ? ", not root's" : "");
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("debugfs files writable by others or not root's");
	ASSERT_EQ(0, as_nobody(try_files, &read, &d, sizeof(d)));
	EXPECT_EQ(files->n, d.n);
	EXPECT_EQ(0, d.opened) TH_LOG("nobody opened %d debugfs files, first %s", d.opened,
				      d.first);
	ksft_print_msg("debugfs: %d socpmu files, all root's, none writable by others, none opened by nobody\n",
		       files->n);
	munmap(files, sizeof(*files));
	rel_sim_delete_all(devs, ndev);
}

/*
 * A debugfs file's mode says what it does: one without a read operation
 * (a command file, e.g. the simulator's inject or csr) is write-only,
 * 0200, and does not look readable; one that can be read has 0400. Root
 * opens any of them whatever the mode, and reading one that cannot be
 * read fails with EINVAL, which is how the test tells them apart.
 */
TEST(debugfs_modes_match_ops)
{
	static const char *const roots[] = {
		SP_SIM_DEBUGFS, SP_DEBUGFS "/socpmu_migrate", SP_DEBUGFS "/sifive_trace",
	};
	struct rel_simdev devs[16];
	int ndev, bad = 0, wo = 0, ro = 0;

	if (geteuid())
		SKIP(return, "needs root");
	create_one_of_each(devs, &ndev);
	files = mmap(NULL, sizeof(*files), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, files);
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++)
		if (sp_path_exists(roots[i]))
			walk(roots[i], NULL);
	for (int i = 0; i < files->n; i++) {
		mode_t m = files->mode[i] & 0777;
		bool readable;
		char buf[64];
		int fd;

		if (S_ISDIR(files->mode[i]))
			continue;
		fd = open(files->path[i], O_RDONLY | O_NONBLOCK);
		if (fd < 0) {
			bad++;
			TH_LOG("%s: root cannot open it: %s", files->path[i], strerror(errno));
			continue;
		}
		readable = read(fd, buf, sizeof(buf)) >= 0 || errno != EINVAL;
		close(fd);
		if (readable ? !(m & 0400) : m != 0200) {
			bad++;
			TH_LOG("%s: mode %o, but it %s be read", files->path[i], m,
			       readable ? "can" : "cannot");
		}
		readable ? ro++ : wo++;
	}
	ksft_print_msg("debugfs: %d write-only files (0200), %d readable ones (0400 or 0600)\n",
		       wo, ro);
	EXPECT_LT(0, wo);
	EXPECT_EQ(0, bad);
	munmap(files, sizeof(*files));
	rel_sim_delete_all(devs, ndev);
}

TEST(sysfs_not_writable)
{
	char names[SP_MAX_PMUS][SP_NAME_LEN], path[512], real[PATH_MAX];
	struct rel_simdev devs[16];
	struct denied d = { 0 };
	bool read = false;
	int n, ndev, bad = 0, writable = 0;

	if (geteuid())
		SKIP(return, "needs root");
	create_one_of_each(devs, &ndev);
	files = mmap(NULL, sizeof(*files), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, files);
	n = sp_list_socpmu(names, SP_MAX_PMUS);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), SP_PMU_BUS "/%.63s", names[i]);
		if (realpath(path, real))
			walk(real, "/power");
	}
	if (sp_path_exists(SP_SIM_ROOT))
		walk(SP_SIM_ROOT, "/power");
	if (!files->n) {
		rel_sim_delete_all(devs, ndev);
		SKIP(return, "no socpmu PMU and no simulator");
	}
	for (int i = 0; i < files->n; i++) {
		mode_t m = files->mode[i];

		if (S_ISDIR(m))
			continue;
		if (m & 0200)
			writable++;
		if ((m & S_ISVTX) || (m & 0022)) {
			if (bad++ < 10)
				TH_LOG("%s: mode %o%s", files->path[i], m & 0777,
				       (m & S_ISVTX) ? ", not root's" : "");
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("sysfs files writable by others or not root's");
	ASSERT_EQ(0, as_nobody(try_files, &read, &d, sizeof(d)));
	EXPECT_EQ(0, d.opened) TH_LOG("nobody opened %d sysfs files for writing, first %s",
				      d.opened, d.first);
	ksft_print_msg("sysfs: %d files of %d socpmu PMUs and the simulator, %d writable by root only, none by nobody\n",
		       files->n, n, writable);
	munmap(files, sizeof(*files));
	rel_sim_delete_all(devs, ndev);
}

/* ---- AUX buffers ---- */

static const char canary[] = "SOCPMU-STALE-MEM";	/* 16 bytes */
#define CANARY_BYTES	(64UL << 20)

/* Leave freed pages full of the canary behind */
static void spread_canary(void)
{
	char *p = mmap(NULL, CANARY_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < CANARY_BYTES; i += 16)
		memcpy(p + i, canary, 16);
	munmap(p, CANARY_BYTES);
}

static bool has_canary(const uint8_t *buf, size_t len)
{
	return memmem(buf, len, canary, 16) != NULL;
}

#include "../sifive_trace/st_lib.h"

#define AUX_PAGES	64
#define A_STORES	2000
#define B_STORES	10
#define A_VALUE		0x5ec1eac5u
#define B_VALUE		0x0b0bu

static struct nexus_msg msgs[8192];
static uint8_t auxbuf[AUX_PAGES << 12];

TEST(aux_no_stale_data)
{
	static const uint64_t sinks[] = { 0, CFG_SRAM, CFG_SBA };
	struct sifive_itc_write wa[A_STORES], wb[B_STORES];
	struct sp_dev dev = { 0 };
	unsigned int srcbits = 0;
	int cpus[64], ncpu, itc, sessions = 0;

	if (geteuid())
		SKIP(return, "needs root");
	if (st_available())
		SKIP(return, "no AUX PMU: no sifive_trace PMU (and its /dev/sifive-itc)");
	ASSERT_EQ(0, st_dev_create(&dev, "", 1));
	ncpu = st_encoders(cpus, 64, &srcbits);
	ASSERT_LT(0, ncpu);
	itc = itc_open();
	ASSERT_LE(0, itc);
	ASSERT_EQ(0, pin_cpu(cpus[0]));
	for (int i = 0; i < A_STORES; i++)
		wa[i] = (struct sifive_itc_write){ .channel = 9, .width = 32, .value = A_VALUE };
	for (int i = 0; i < B_STORES; i++)
		wb[i] = (struct sifive_itc_write){ .channel = 3, .width = 16, .value = B_VALUE };

	for (size_t s = 0; s < ARRAY_SIZE(sinks); s++) {
		struct decoded dec = { .m = msgs, .max = ARRAY_SIZE(msgs) };
		struct nexus_stats nst;
		struct trace a, b;
		unsigned int traced = 0, dq = 0;
		uint64_t head;
		size_t len;
		int ret;

		/* Session A fills the sink and its buffer with its stores */
		ret = trace_open(&a, sinks[s], 0, -1, cpus[0], AUX_PAGES, false);
		if (ret == -EINVAL || ret == -EOPNOTSUPP)
			continue;	/* no such sink on this hart */
		ASSERT_EQ(0, ret) TH_LOG("sink %llu: %s", (unsigned long long)sinks[s],
					 strerror(-ret));
		ASSERT_EQ(0, trace_enable(&a));
		ASSERT_EQ(0, itc_write_all(itc, wa, A_STORES, &traced));
		ASSERT_EQ(0, trace_disable(&a));
		trace_aux_take(&a, auxbuf, sizeof(auxbuf));
		trace_close(&a);

		/* Session B, on pages that may have been anything before */
		spread_canary();
		ASSERT_EQ(0, trace_open(&b, sinks[s], 0, -1, cpus[0], AUX_PAGES, false));
		ASSERT_TRUE(!has_canary(b.aux, b.aux_size)) TH_LOG("new AUX buffer holds freed memory");
		ASSERT_EQ(0, trace_enable(&b));
		ASSERT_EQ(0, itc_write_all(itc, wb, B_STORES, &traced));
		ASSERT_EQ(0, trace_disable(&b));
		head = __atomic_load_n(&b.pc->aux_head, __ATOMIC_ACQUIRE);
		ASSERT_GE(b.aux_size, head) TH_LOG("session B wrapped: %llu bytes",
						   (unsigned long long)head);
		EXPECT_FALSE(has_canary(b.aux, b.aux_size)) TH_LOG("AUX buffer holds freed memory");
		for (size_t i = head; i < b.aux_size; i++) {
			unsigned int byte = ((uint8_t *)b.aux)[i];

			if (byte) {
				EXPECT_EQ(0, byte) TH_LOG("sink %llu: byte %zu past the head (%llu)",
							  (unsigned long long)sinks[s], i,
							  (unsigned long long)head);
				break;
			}
		}
		len = trace_aux_take(&b, auxbuf, sizeof(auxbuf));
		ASSERT_EQ(0, decode(auxbuf, len, srcbits, false, &dec, &nst));
		EXPECT_EQ(0, nst.invalid);
		for (unsigned int i = 0; i < dec.n; i++) {
			if (dec.m[i].tcode != NEXUS_TCODE_DATA_ACQUISITION)
				continue;
			EXPECT_NE(A_VALUE, dec.m[i].dq.data) TH_LOG("session A's store in B's buffer");
			EXPECT_EQ(B_VALUE, dec.m[i].dq.data);
			dq++;
		}
		EXPECT_EQ(B_STORES, dq);
		trace_close(&b);
		sessions++;
	}
	close(itc);
	sp_dev_delete(&dev);
	ASSERT_LT(0, sessions) TH_LOG("no sink could trace");
	ksft_print_msg("AUX: %d sinks, fresh buffers hold no freed memory, nothing of the previous session, zeroes past the head\n",
		       sessions);
}

TEST_HARNESS_MAIN
