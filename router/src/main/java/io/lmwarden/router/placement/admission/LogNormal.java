package io.lmwarden.router.placement.admission;

/**
 * A log-normal distribution of pauses: ln(pause) is normal with mean {@code mu} and deviation {@code sigma}. Tool
 * runs and thinking times are skewed this way (many short, a long tail), which a timer cannot express.
 */
record LogNormal(double mu, double sigma) {

    /** P(pause > x). */
    double survival(double x) {
        if (x <= 0) {
            return 1;
        }
        return 0.5 * erfc((Math.log(x) - mu) / (sigma * Math.sqrt(2)));
    }

    double median() {
        return Math.exp(mu);
    }

    /** The complementary error function (Numerical Recipes' Chebyshev fit, relative error below 1.2e-7). */
    static double erfc(double z) {
        double t = 1 / (1 + 0.5 * Math.abs(z));
        double r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
                + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
        return z >= 0 ? r : 2 - r;
    }
}
