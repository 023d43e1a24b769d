package io.lmwarden.router.config;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One area of the settings (server, upstream, admission, …): a record whose components are the values
 * of the {@link Setting}s it declares as its own static constants, matched by key (the component's name,
 * or its {@link Key}). Built only from {@link SettingValues}, by name, so two settings of one type cannot
 * be swapped; a setting without a component, a component without a setting, or a type that differs is an
 * error when the area is declared (at class loading, so every test and every start finds it).
 * Adding a setting to an area is two edits in one file: the constant and the component.
 *
 * @param <R> the area's record
 */
public final class Area<R extends Record> {

    private final String name;
    private final Class<R> type;
    private final List<Setting<?>> settings;
    private final Constructor<R> constructor;

    private Area(String name, Class<R> type, List<Setting<?>> settings, Constructor<R> constructor) {
        this.name = name;
        this.type = type;
        this.settings = List.copyOf(settings);
        this.constructor = constructor;
    }

    /** Binds the record's components to the settings it declares; see the class comment for the rules. */
    public static <R extends Record> Area<R> of(String name, Class<R> type) {
        Map<String, Setting<?>> declared = new HashMap<>();
        for (Field f : type.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Setting.class) {
                Setting<?> s = (Setting<?>) read(f);
                if (declared.put(s.key(), s) != null) {
                    throw new IllegalStateException(type.getSimpleName() + " declares setting " + s.key() + " twice");
                }
            }
        }
        RecordComponent[] components = type.getRecordComponents();
        List<Setting<?>> ordered = new ArrayList<>();
        Class<?>[] parameterTypes = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent c = components[i];
            Key k = c.getAnnotation(Key.class);
            String key = k == null ? c.getName() : k.value();
            Setting<?> s = declared.remove(key);
            if (s == null) {
                throw new IllegalStateException(type.getSimpleName() + "." + c.getName() + " has no setting '" + key + "' declared in it");
            }
            String componentType = boxed(c.getGenericType().getTypeName());
            if (!componentType.equals(s.javaType())) {
                throw new IllegalStateException(type.getSimpleName() + "." + c.getName() + " is a " + componentType
                        + " but setting " + key + " gives " + s.javaType());
            }
            ordered.add(s);
            parameterTypes[i] = c.getType();
        }
        if (!declared.isEmpty()) {
            throw new IllegalStateException(type.getSimpleName() + " declares settings without a component: " + declared.keySet());
        }
        try {
            return new Area<>(name, type, ordered, type.getDeclaredConstructor(parameterTypes));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("a record has its canonical constructor", e);
        }
    }

    public String name() {
        return name;
    }

    public Class<R> type() {
        return type;
    }

    /** In the order of the record's components: the order of the README's table. */
    public List<Setting<?>> settings() {
        return settings;
    }

    /** The area's record from resolved values; the record's own constructor checks what spans several settings. */
    public R build(SettingValues values) {
        Object[] args = new Object[settings.size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = values.get(settings.get(i));
        }
        try {
            return constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The values a record of this area holds, by setting: how {@link RouterConfig#with(Record)} takes a whole area. */
    public Map<Setting<?>, Object> valuesOf(R record) {
        Map<Setting<?>, Object> out = new HashMap<>();
        RecordComponent[] components = type.getRecordComponents();
        for (int i = 0; i < components.length; i++) {
            try {
                out.put(settings.get(i), components[i].getAccessor().invoke(record));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return out;
    }

    private static Object read(Field f) {
        try {
            f.setAccessible(true);
            return f.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String boxed(String typeName) {
        return switch (typeName) {
            case "int" -> Integer.class.getName();
            case "long" -> Long.class.getName();
            case "double" -> Double.class.getName();
            case "boolean" -> Boolean.class.getName();
            default -> typeName;
        };
    }
}
