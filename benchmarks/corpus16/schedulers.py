"""Learning-rate and step-size schedulers: functions of the step, and scheduler objects."""

import math

import jax.numpy as jnp

from .registry import program, stateful

S5, S50, S500 = jnp.array(5), jnp.array(50), jnp.array(500)


@program("scheduler", (0, 0.1), (45, 0.1), (95, 0.1), (S50, 0.1))
def step_decay(step, base_lr):
    return base_lr * 0.5 ** (step // 30)


@program("scheduler", (S5, 1000, 100), (S50, 1000, 100), (S500, 1000, 100), (jnp.array(2000), 1000, 100))
def warmup_cosine(step, total_steps, warmup):
    base_lr, min_lr = 3e-4, 1e-5
    if step < warmup:
        return base_lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, total_steps - warmup)
    progress = min(float(progress), 1.0)
    return min_lr + 0.5 * (base_lr - min_lr) * (1 + math.cos(math.pi * progress))


@program("scheduler", (jnp.array([1.0, 0.9, 0.9, 0.91, 0.92, 0.93, 0.8, 0.85, 0.86, 0.87]),),
         (jnp.linspace(1.0, 0.1, 10),), (jnp.ones(10),))
def reduce_on_plateau(val_losses):
    lr, best, wait = 0.1, float("inf"), 0
    patience, factor = 2, 0.5
    lrs = []
    for loss in val_losses:
        if loss < best:
            best, wait = loss, 0
        else:
            wait += 1
            if wait > patience:
                lr = lr * factor
                wait = 0
        lrs.append(lr)
    return lrs


@program("scheduler", (S5, 100), (S50, 100), (jnp.array(99), 100))
def one_cycle(step, total):
    pct = step / total
    if pct < 0.3:
        lr = 1e-4 + (1e-2 - 1e-4) * pct / 0.3
    else:
        lr = 1e-2 - (1e-2 - 1e-6) * (pct - 0.3) / 0.7
    return lr


@program("scheduler", (10, 0.1), (1, 0.5))
def schedule_table(n, base):
    def lr_at(s):
        return base * (0.9 ** s) if s > 2 else base * (s + 1) / 3

    return jnp.array([lr_at(s) for s in range(n)])


@program("scheduler", (S5, 20), (S50, 20), (jnp.array(39), 20))
def cyclic_triangular(step, step_size):
    base_lr, max_lr = 1e-3, 6e-3
    cycle = math.floor(1 + step / (2 * step_size))
    x = abs(step / step_size - 2 * cycle + 1)
    return base_lr + (max_lr - base_lr) * max(0.0, 1 - x)


@program("scheduler", (S5,), (S500,), (jnp.array(5000),))
def exp_decay_floor(step):
    lr = 0.1 * jnp.exp(-step / 100.0)
    return max(lr, 1e-3)


class StepLR:
    def __init__(self, base_lr, step_size, gamma=0.1):
        self.base_lr = base_lr
        self.step_size = step_size
        self.gamma = gamma
        self.last_epoch = 0
        self.lr = base_lr

    def step(self, val_loss):
        self.last_epoch += 1
        if self.last_epoch % self.step_size == 0:
            self.lr = self.lr * self.gamma
        if val_loss > 10.0:
            self.lr = self.lr * 0.5
        return self.lr


def _sched_step(loss):
    def step(f, sched):
        return f(jnp.float32(loss)), sched.last_epoch
    return step


def _change_gamma(f, sched):
    sched.gamma = 0.5
    return f(jnp.float32(1.0)), sched.last_epoch


@stateful("scheduler", [_sched_step(1.0), _sched_step(1.0), _sched_step(20.0), _change_gamma, _sched_step(1.0)])
def make_step_lr_object():
    sched = StepLR(0.1, 2)
    return sched.step, sched
