#!/usr/bin/env python3
"""Writes a synthetic opens trace of users with several habits (Datasets/README.md,
"Traces") to standard output: evaluation away from MODEL.md's user model.

    python3 Datasets/traces/make-habits.py > /tmp/habits.csv
    python3 Datasets/traces/make-habits.py --devices 500 --days 91 --seed 7 > /tmp/habits.csv

MODEL.md's users open the app as a Poisson process over a smooth diurnal curve (or, as
routine users, at a few fixed times); a policy tuned on them may owe its score to that
shape. These users are built differently, and every choice below is this generator's own
assumption (no data set was fitted):

- Habits: each user has 1 to 4 habits (1 + a binomial(3, 0.5) count). A habit has a time
  of day drawn from one of four slots (morning 06:00-09:30, midday 11:30-14:00, late
  afternoon 16:30-19:30, evening 20:00-23:30, uniform inside the slot), a spread (the sd of
  a normal jitter, 5 to 45 min, log-uniform), a probability of being kept on a given day
  (0.4 to 0.95, uniform) and, with probability 0.4, it holds on weekdays only (a commute).
- Background opens: a Poisson number a day (the user's mean is lognormal, median 1.5,
  sigma 0.8), uniform over the user's waking hours (a personal wake-up time 06:00-08:30
  and bedtime 22:00-00:30).
- Reopens: after an open, with probability 0.2, another one an exponential time (mean
  5 min) after the session ends.
- Weekends (days 5 and 6 of every week, as in bgbench: day 0 is a Monday): weekday-only
  habits are skipped, the others and the waking hours move later by a personal shift
  (0 to 2 h, uniform).
- Vacation weeks: each user takes 0 to 2 vacation weeks (probability 0.5 of one, 0.2 of
  two) at uniform weeks after the first two; during one every habit is kept with a third
  of its probability and runs 1 h later, and background opens double.
- Routine shifts: with probability 0.3 a user's routine changes once, on a uniform day
  after the first quarter of the run: one habit (chosen uniformly) moves by 1 to 4 h
  earlier or later (a new job, a new commute).
- Sessions: lognormal, median 30 s, sigma 1.2, at most 2 h, rounded to 0.1 s.

Timestamps are seconds since t = 0 (day 0, 00:00, device-local), millisecond precision,
sorted per device; devices are h0001, h0002, ... Only random.random() draws are used
(every Python 3 repeats them for a seed); math.log, math.exp and math.cos could differ in
a last bit on another platform, which moves a timestamp by far less than its millisecond.
"""
import argparse
import math
import random

DAY = 86400.0
HOUR = 3600.0
SLOTS = [(6.0, 9.5), (11.5, 14.0), (16.5, 19.5), (20.0, 23.5)]  # hours of the day


def normal(rng):
    # Box-Muller, one value per call.
    return math.sqrt(-2 * math.log(1 - rng.random())) * math.cos(2 * math.pi * rng.random())


def poisson(rng, mean):
    # Knuth's product of uniforms (means here are small).
    limit, k, p = math.exp(-mean), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def uniform(rng, low, high):
    return low + (high - low) * rng.random()


def exponential(rng, mean):
    return -mean * math.log(1 - rng.random())


class Habit:
    def __init__(self, rng):
        low, high = SLOTS[int(rng.random() * len(SLOTS))]
        self.at = uniform(rng, low, high) * HOUR
        self.spread = 60 * math.exp(uniform(rng, math.log(5), math.log(45)))
        self.keep = uniform(rng, 0.4, 0.95)
        self.weekdays_only = rng.random() < 0.4


class User:
    def __init__(self, rng, days):
        self.habits = [Habit(rng) for _ in range(1 + sum(rng.random() < 0.5 for _ in range(3)))]
        self.background = 1.5 * math.exp(0.8 * normal(rng))
        self.wake = uniform(rng, 6.0, 8.5) * HOUR
        self.bed = uniform(rng, 22.0, 24.5) * HOUR
        self.weekend_shift = uniform(rng, 0, 2) * HOUR
        weeks = days // 7
        count = 2 if (r := rng.random()) < 0.2 else 1 if r < 0.7 else 0
        self.vacations = {2 + int(rng.random() * (weeks - 2)) for _ in range(count)} if weeks > 2 else set()
        self.shift_day, self.shift_habit, self.shift = None, None, 0.0
        if rng.random() < 0.3:
            self.shift_day = int(uniform(rng, days / 4, days))
            self.shift_habit = int(rng.random() * len(self.habits))
            self.shift = (1 if rng.random() < 0.5 else -1) * uniform(rng, 1, 4) * HOUR

    def day(self, rng, day):
        """The primary opens of one day, in seconds since t = 0 (unsorted)."""
        weekend = day % 7 >= 5
        vacation = day // 7 in self.vacations
        late = (self.weekend_shift if weekend else 0.0) + (HOUR if vacation else 0.0)
        opens = []
        for i, habit in enumerate(self.habits):
            if weekend and habit.weekdays_only:
                continue
            if rng.random() >= habit.keep * (1 / 3 if vacation else 1):
                continue
            at = habit.at + late + habit.spread * normal(rng)
            if self.shift_day is not None and day >= self.shift_day and i == self.shift_habit:
                at += self.shift
            opens.append(day * DAY + at)
        for _ in range(poisson(rng, self.background * (2 if vacation else 1))):
            opens.append(day * DAY + uniform(rng, self.wake, self.bed) + late)
        return opens


def session(rng):
    return min(2 * HOUR, 30 * math.exp(1.2 * normal(rng)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=200, help="devices (default 200)")
    parser.add_argument("--days", type=int, default=91, help="days (default 91)")
    parser.add_argument("--seed", type=int, default=2026, help="seed (default 2026)")
    args = parser.parse_args()
    if args.devices < 1 or args.days < 1:
        parser.error("--devices and --days must be at least 1")
    rng = random.Random(args.seed)
    horizon = args.days * DAY
    print("device,timestamp,session_seconds")
    for d in range(1, args.devices + 1):
        user = User(rng, args.days)
        primary = sorted(t for day in range(args.days) for t in user.day(rng, day))
        rows = []
        for t in primary:
            length = session(rng)
            rows.append((t, length))
            if rng.random() < 0.2:
                again = t + length + exponential(rng, 300)
                rows.append((again, session(rng)))
        for t, length in sorted(r for r in rows if 0 <= r[0] < horizon):
            print(f"h{d:04d},{t:.3f},{length:.1f}")


if __name__ == "__main__":
    main()
