#!/usr/bin/env python3
"""Writes the synthetic sample opens trace (Datasets/README.md, "Traces") to standard output.

    python3 Datasets/traces/make-sample.py > Datasets/traces/sample.csv

20 devices (u01..u20) x 14 days, seed 2026. Each device opens the app at a personal
rate (lognormal, median 6 a day, sigma 0.6) with R1's hourly open weights (MODEL.md
section 10) shifted by a personal chronotype (normal, sd 1 h); within an hour, opens are
uniform. Session lengths are exponential with mean 70 s, rounded to 0.1 s; one open in
ten has none (the simulator then draws it). Timestamps are seconds since t = 0 (day 0,
00:00), with millisecond precision. Only random.random() draws (every Python 3 repeats
it for a seed); math.log and math.cos could differ in a last bit on another platform.
"""
import math
import random

SEED = 2026
DEVICES = 20
DAYS = 14
WEIGHTS = [1, 0.5, 0.3, 0.3, 0.5, 1, 3, 6, 7, 6, 5, 5, 6, 5, 5, 5, 6, 7, 8, 9, 9, 8, 5, 2]


def normal(rng):
    # Box-Muller, one value per call.
    return math.sqrt(-2 * math.log(1 - rng.random())) * math.cos(2 * math.pi * rng.random())


def poisson(rng, mean):
    # Knuth's product of uniforms (means here are below 2).
    limit, k, p = math.exp(-mean), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def main():
    rng = random.Random(SEED)
    total = sum(WEIGHTS)
    print("device,timestamp,session_seconds")
    for d in range(1, DEVICES + 1):
        rate = 6 * math.exp(0.6 * normal(rng))
        shift = 3600 * normal(rng)
        opens = []
        for day in range(DAYS):
            for hour in range(24):
                for _ in range(poisson(rng, rate * WEIGHTS[hour] / total)):
                    t = day * 86400 + (hour + rng.random()) * 3600 + shift
                    if 0 <= t < DAYS * 86400:
                        opens.append(t)
        for t in sorted(opens):
            session = -70 * math.log(1 - rng.random())
            given = rng.random() >= 0.1
            print(f"u{d:02d},{t:.3f},{session:.1f}" if given else f"u{d:02d},{t:.3f},")


if __name__ == "__main__":
    main()
