package io.lmwarden.operator.runtime;

import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.dependent.DependentResourceSpec;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResourceFactory;
import io.lmwarden.operator.dependent.OperatorDefaults;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;

/**
 * Creates dependent resources with the installation's {@link OperatorDefaults} (router image, pull
 * policy) instead of JOSDK's no-argument construction, so no dependent reads global state.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class DefaultsAwareDependentResourceFactory
        implements DependentResourceFactory<ControllerConfiguration<?>, DependentResourceSpec<?, ?, ?>> {

    private final OperatorDefaults defaults;

    DefaultsAwareDependentResourceFactory(OperatorDefaults defaults) {
        this.defaults = defaults;
    }

    @Override
    public DependentResource createFrom(DependentResourceSpec<?, ?, ?> spec, ControllerConfiguration<?> configuration) {
        Class<?> type = spec.getDependentResourceClass();
        Constructor<?> constructor;
        try {
            constructor = type.getConstructor(OperatorDefaults.class);
        } catch (NoSuchMethodException e) {
            return DependentResourceFactory.DEFAULT.createFrom(spec, configuration);
        }
        try {
            DependentResource dependent = (DependentResource) constructor.newInstance(defaults);
            configure(dependent, spec, configuration);
            return dependent;
        } catch (InstantiationException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot create dependent resource " + type.getName(), e);
        }
    }
}
