/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * socpmu hardware simulator: interface between the core and the models.
 *
 * The core (sim_core.c) owns the user interface (new_device/del_device,
 * debugfs), one platform device per simulated device and its regmap. A model
 * type only describes its configuration, its register semantics and the
 * devices it exposes to the real drivers. To add a model, define a
 * struct socpmu_sim_type, declare it below and add it to the registry in
 * sim_core.c.
 */
#ifndef _SOCPMU_SIM_H
#define _SOCPMU_SIM_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/types.h>

struct dentry;
struct device;
struct property_entry;

#define SOCPMU_SIM_NAME_LEN	32

/**
 * struct socpmu_sim_dev - one simulated device
 * @node: entry in the core's device list
 * @name: instance name: debugfs directory and del_device argument
 * @type: model type
 * @id: id of the sim platform device "socpmu-sim-<type>.<id>"
 * @cfg: configuration parsed from new_device, @type->cfg_size bytes
 * @dev: the sim platform device, set before @type->create is called
 * @model: model state returned by @type->create
 * @max_register: highest register address; set by @type->create if the model
 *	has a register interface (@type->reg_read)
 * @reads: register reads through the regmap (debugfs "regs")
 * @writes: register writes through the regmap
 * @read_delay_ns: stall of every register read (debugfs "read_delay_ns")
 * @probe_err: result of probing @dev
 * @sleeping_regmap: the regmap says it may sleep (sleeping_regmap=1)
 * @destroy_delay_us: the child's "socpmu,test-destroy-delay-us" property
 */
struct socpmu_sim_dev {
	struct list_head node;
	char name[SOCPMU_SIM_NAME_LEN];
	const struct socpmu_sim_type *type;
	int id;
	void *cfg;
	struct device *dev;
	void *model;
	unsigned int max_register;
	bool sleeping_regmap;
	unsigned int destroy_delay_us;
	atomic64_t reads;
	atomic64_t writes;
	u32 read_delay_ns;
	int probe_err;
};

/**
 * struct socpmu_sim_type - a hardware model type
 * @name: first word of a new_device line; the sim platform device is
 *	"socpmu-sim-<name>.<id>" and default instance names are "<name><N>"
 * @cfg_size: size of the model's configuration
 * @cfg_init: fill a zeroed configuration with the defaults
 * @cfg_parse: apply one "key=val" argument of new_device ("name" is handled
 *	by the core); return 0, or -EINVAL with a pr_debug() reason
 * @cfg_show: append " key=val ..." to the devices listing at @buf + @at with
 *	sysfs_emit_at(); return the number of bytes added
 * @create: allocate the model for @sdev->cfg (may sleep); return it or an
 *	ERR_PTR(); set @sdev->max_register when @reg_read is provided
 * @destroy: free the model
 * @reg_read: register read, optional. Called in atomic context, must not
 *	sleep; unmapped addresses read 0. Register access counting is done
 *	by the core.
 * @reg_write: register write, same rules; unmapped addresses are ignored
 * @debugfs_init: create the model's files in @dir (optional)
 * @add_children: register the devices the real drivers bind to, with
 *	socpmu_sim_add_child()
 */
struct socpmu_sim_type {
	const char *name;
	size_t cfg_size;
	void (*cfg_init)(void *cfg);
	int (*cfg_parse)(void *cfg, const char *key, const char *val);
	int (*cfg_show)(const void *cfg, char *buf, int at);
	void *(*create)(struct socpmu_sim_dev *sdev);
	void (*destroy)(void *model);
	int (*reg_read)(void *model, unsigned int reg, unsigned int *val);
	int (*reg_write)(void *model, unsigned int reg, unsigned int val);
	void (*debugfs_init)(struct socpmu_sim_dev *sdev, struct dentry *dir);
	int (*add_children)(struct socpmu_sim_dev *sdev);
};

/* Helpers for models, see sim_core.c */
int socpmu_sim_add_child(struct socpmu_sim_dev *sdev, const char *name,
			 const struct property_entry *props);
int socpmu_sim_add_child_data(struct socpmu_sim_dev *sdev, const char *name,
			      const struct property_entry *props, const void *data, size_t size);
int socpmu_sim_parse_uint(const char *key, const char *val, unsigned int min,
			  unsigned int max, unsigned int *res);
int socpmu_sim_parse_units(const char *key, const char *word, unsigned int nr,
			   unsigned int *first, unsigned int *end);
int socpmu_sim_parse_u64(const char *key, const char *word, u64 *res);
char *socpmu_sim_get_cmd(const char __user *ubuf, size_t count);
void socpmu_sim_debugfs_delay(struct dentry *dir, const char *name, u32 *ns);
int socpmu_sim_split(char *cmd, char **words, int n);

/* The Tensix counter model (sim_tensix.c), also behind every ttcard tile */
struct tensix_sim;
struct tensix_sim *tensix_sim_new(unsigned int ncores, unsigned int arch,
				  unsigned int clock_mhz);
void tensix_sim_free(struct tensix_sim *ts);
void tensix_sim_core_read(struct tensix_sim *ts, unsigned int c, unsigned int off,
			  unsigned int *val);
void tensix_sim_core_write(struct tensix_sim *ts, unsigned int c, unsigned int off,
			   unsigned int val);
void tensix_sim_debugfs(struct tensix_sim *ts, struct dentry *dir);
void tensix_sim_set_gated(struct tensix_sim *ts, bool gated);
void tensix_sim_reset(struct tensix_sim *ts);

/* Model types */
extern const struct socpmu_sim_type socpmu_sim_tensix;
extern const struct socpmu_sim_type socpmu_sim_pulp;
extern const struct socpmu_sim_type socpmu_sim_esp;
extern const struct socpmu_sim_type socpmu_sim_hpm;
extern const struct socpmu_sim_type socpmu_sim_trace;
extern const struct socpmu_sim_type socpmu_sim_ttcard;

#endif /* _SOCPMU_SIM_H */
